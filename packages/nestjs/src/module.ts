/**
 * `GatehouseModule`: provides the resolved options, the verifier and the guard (global by default),
 * serves the RFC 9728 document when `resourceMetadata` is set, and with `warmUp` fetches the signing
 * keys while the application initializes.
 *
 * @module
 */
import { type ResolvedAdapterOptions, resolveAdapterOptions } from '@gatehouse/core';
import { type DynamicModule, Inject, Module, type OnModuleInit, type Provider } from '@nestjs/common';
import { APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import { GatehouseGuard } from './guard.js';
import { resolveAsyncOptions, resolveModuleOptions } from './options.js';
import { GATEHOUSE, GATEHOUSE_VERIFIER } from './tokens.js';
import type { GatehouseModuleAsyncOptions, GatehouseModuleOptions } from './types.js';

/** The module's definition around the provider of the resolved options. */
function define(
  options: Provider,
  globalGuard: boolean,
  imports: DynamicModule['imports'] = [],
): DynamicModule {
  return {
    module: GatehouseModule,
    // Global, so `@UseGuards(GatehouseGuard)` and the tokens work in every module of the app.
    global: true,
    imports,
    providers: [
      options,
      {
        provide: GATEHOUSE_VERIFIER,
        useFactory: (gatehouse: ResolvedAdapterOptions) => gatehouse.verifier,
        inject: [GATEHOUSE],
      },
      GatehouseGuard,
      ...(globalGuard ? [{ provide: APP_GUARD, useExisting: GatehouseGuard }] : []),
    ],
    exports: [GATEHOUSE, GATEHOUSE_VERIFIER, GatehouseGuard],
  };
}

/**
 * The module. Import it once, in the root module.
 *
 * @example
 * ```ts
 * import { Module } from '@nestjs/common';
 * import { GatehouseModule } from '@gatehouse/nestjs';
 *
 * @Module({
 *   imports: [GatehouseModule.forRoot({ issuer: 'https://id.example.com', audience: 'https://api.example.com' })],
 *   controllers: [OrdersController],
 * })
 * export class AppModule {}
 * ```
 */
@Module({})
export class GatehouseModule implements OnModuleInit {
  readonly #gatehouse: ResolvedAdapterOptions;
  readonly #host: HttpAdapterHost;

  constructor(
    @Inject(GATEHOUSE) gatehouse: ResolvedAdapterOptions,
    @Inject(HttpAdapterHost) host: HttpAdapterHost,
  ) {
    this.#gatehouse = gatehouse;
    this.#host = host;
  }

  /**
   * Configure the module with options known up front. They are validated here: a bad option throws a
   * `TypeError` naming it (with a "did you mean" for a typo).
   *
   * @example
   * ```ts
   * GatehouseModule.forRoot({
   *   issuer: 'https://id.example.com',
   *   audience: 'https://api.example.com',
   *   resourceMetadata: { scopesSupported: ['read:orders', 'write:orders'] },
   * });
   * ```
   */
  static forRoot(options: GatehouseModuleOptions): DynamicModule {
    const { gatehouse, globalGuard } = resolveModuleOptions(options);
    return define({ provide: GATEHOUSE, useValue: gatehouse }, globalGuard);
  }

  /**
   * Configure the module from other providers (configuration, secrets). The factory's result is
   * validated when it resolves, so a bad option fails the application's start.
   *
   * @example
   * ```ts
   * GatehouseModule.forRootAsync({
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({
   *     issuer: config.getOrThrow('ISSUER'),
   *     audience: config.getOrThrow('AUDIENCE'),
   *   }),
   * });
   * ```
   */
  static forRootAsync(options: GatehouseModuleAsyncOptions): DynamicModule {
    const { globalGuard } = resolveAsyncOptions(options);
    const { useFactory, inject = [], imports } = options;
    return define(
      {
        provide: GATEHOUSE,
        useFactory: async (...providers: never[]) => resolveAdapterOptions(await useFactory(...providers)),
        inject,
      },
      globalGuard,
      imports,
    );
  }

  /** Serve the RFC 9728 document (outside any global prefix: its path is fixed by the resource), then warm up. */
  async onModuleInit(): Promise<void> {
    const { metadata, verifier, warmUp } = this.#gatehouse;
    const adapter = this.#host.httpAdapter;
    if (metadata !== undefined && adapter !== undefined) {
      adapter.get(metadata.path, (_request: unknown, response: unknown) => {
        for (const [name, value] of Object.entries(metadata.headers))
          adapter.setHeader(response, name, value);
        adapter.reply(response, metadata.document, 200);
      });
    }
    // A KeySetError here fails `app.init()` / `app.listen()`: a misconfigured API does not start.
    if (warmUp) await verifier.warmUp();
  }
}
