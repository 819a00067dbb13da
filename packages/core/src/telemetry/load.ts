/**
 * Finding `@opentelemetry/api`, an optional peer dependency, without making it a dependency of any
 * bundle or build.
 *
 * Why this strategy:
 * - **Synchronously where the runtime allows**: `process.getBuiltinModule('node:module').createRequire()`
 *   exists on Node (≥ 22.3, so on every supported version), Bun and Deno, in ES modules and CommonJS
 *   alike, and in both of core's builds — the web build never names `require` nor a Node built-in in
 *   an import, so bundlers and runtimes without Node APIs are not affected. The package is required
 *   from core's own location (where a package manager links a peer dependency), once per process,
 *   when the first verifier is created: `createVerifier()` stays synchronous, and the very first
 *   request is traced. `@opentelemetry/api` keeps its state in a global, so the CommonJS copy
 *   required here and the ES module the application imports share the providers it registers.
 * - **Otherwise asynchronously**: an `import()` started when the first verifier is created, which
 *   `warmUp()` awaits; requests served before it settles are not traced. Its specifier is a variable,
 *   so no bundler tries to include (or fails to find) a package that is not installed.
 * - **Or explicitly**: `telemetry: { api }` (or `tracerProvider` / `meterProvider`) hands core what it
 *   needs, for bundled runtimes (Workers, browsers) where nothing can be loaded by name at run time.
 *
 * The outcome is decided once per process: a verifier created with the package absent installs no
 * hook at all.
 *
 * @module
 */
import type { OpenTelemetryApiLike } from './types.js';

/** The package, in a variable: bundlers leave an `import()` of a non-literal alone. */
const SPECIFIER: string = '@opentelemetry/api';

/** Where this module is, for `createRequire()`: the file in CommonJS, the module URL in ES modules. */
declare const __filename: string | undefined;

/** What loading found: the API, or `undefined` when it is not installed (or not usable). */
export type Loaded = OpenTelemetryApiLike | undefined;

let found: { readonly api: Loaded } | undefined;
let pending: Promise<Loaded> | undefined;

/** The module's API object, from an ES module namespace or a CommonJS `module.exports`. */
function asApi(module: unknown): Loaded {
  const candidates = [module, (module as { default?: unknown } | null)?.default];
  for (const candidate of candidates) {
    const trace = (candidate as { trace?: { getTracerProvider?: unknown } } | null | undefined)?.trace;
    if (typeof trace?.getTracerProvider === 'function') return candidate as OpenTelemetryApiLike;
  }
  return undefined;
}

/** The module's own location, or `undefined` where it has none usable. */
function here(): string | undefined {
  if (typeof __filename === 'string') return __filename;
  try {
    return typeof import.meta.url === 'string' ? import.meta.url : undefined;
  } catch {
    return undefined;
  }
}

/** `require()` the package where the runtime offers `createRequire`; `undefined` when it cannot tell. */
function requireApi(): { readonly api: Loaded } | undefined {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process?.getBuiltinModule;
  if (typeof getBuiltinModule !== 'function') return undefined;
  const from = here();
  if (from === undefined) return undefined;
  try {
    const module = getBuiltinModule('node:module') as {
      createRequire?: (from: string) => (id: string) => unknown;
    };
    if (typeof module?.createRequire !== 'function') return undefined;
    return { api: asApi(module.createRequire(from)(SPECIFIER)) };
  } catch (error) {
    // Not installed: final on Node and Bun; Deno may still map the name (deno.json, npm: imports).
    const notFound = (error as { code?: unknown } | null)?.code === 'MODULE_NOT_FOUND';
    return notFound && !('Deno' in globalThis) ? { api: undefined } : undefined;
  }
}

/**
 * `@opentelemetry/api` when it is installed: the API now, `undefined` when it is known to be absent,
 * or a promise while an `import()` decides. Loaded once per process.
 *
 * @example
 * ```ts
 * const loaded = loadOpenTelemetry();
 * const api = loaded instanceof Promise ? await loaded : loaded;
 * ```
 */
export function loadOpenTelemetry(): Loaded | Promise<Loaded> {
  if (found !== undefined) return found.api;
  if (pending !== undefined) return pending;
  found = requireApi();
  if (found !== undefined) return found.api;
  pending = import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER).then(
    (module: unknown) => asApi(module),
    () => undefined,
  );
  pending.then((api) => {
    found = { api };
  });
  return pending;
}
