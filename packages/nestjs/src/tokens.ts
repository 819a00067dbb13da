/**
 * Injection tokens of the module's providers. Every injection in the package names its token, so no
 * `emitDecoratorMetadata` is needed (esbuild, tsup, tsx and Vite do not emit it).
 *
 * @module
 */

/**
 * The guard's resolved options (`ResolvedAdapterOptions` from `@gatehouse/core`): the verifier, the
 * RFC 9728 metadata and the switches.
 *
 * @example
 * ```ts
 * constructor(@Inject(GATEHOUSE) private readonly gatehouse: ResolvedAdapterOptions) {}
 * ```
 */
export const GATEHOUSE = Symbol.for('@gatehouse/nestjs:options');

/**
 * The module's `Verifier`, to share its key cache with other code (WebSocket upgrades, queues, …).
 *
 * @example
 * ```ts
 * constructor(@Inject(GATEHOUSE_VERIFIER) private readonly verifier: Verifier) {}
 * ```
 */
export const GATEHOUSE_VERIFIER = Symbol.for('@gatehouse/nestjs:verifier');
