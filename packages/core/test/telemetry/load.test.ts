/**
 * Finding `@opentelemetry/api` (src/telemetry/load.ts): synchronously through `createRequire` where
 * the runtime has `process.getBuiltinModule` (Node here), sharing the providers the application
 * registers on its own copy of the API; asynchronously through `import()` where it has not; and a
 * package that is not installed, which is final (no import tried after).
 */

import * as api from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** A fresh copy of the module (its outcome is kept per process). */
const freshLoad = async () => {
  vi.resetModules();
  return (await import('../../src/telemetry/load.js')).loadOpenTelemetry;
};

const real = process.getBuiltinModule;
afterEach(() => {
  process.getBuiltinModule = real;
  api.trace.disable();
});

describe('loadOpenTelemetry', () => {
  it('loads the API synchronously, once, and shares the global providers with the application’s copy', async () => {
    const load = await freshLoad();
    const loaded = load();
    expect(loaded).not.toBeInstanceOf(Promise);
    expect(load()).toBe(loaded);
    const provider = new TracerProvider();
    api.trace.setGlobalTracerProvider(provider);
    const found = (loaded as typeof api).trace.getTracerProvider();
    expect(found).toBe(api.trace.getTracerProvider());
    expect((found as unknown as { getDelegate(): unknown }).getDelegate()).toBe(provider);
  });

  it('without process.getBuiltinModule (browsers, workerd): an import() that settles to the API', async () => {
    const load = await freshLoad();
    (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
    const loaded = load();
    expect(loaded).toBeInstanceOf(Promise);
    expect(load()).toBe(loaded); // one import per process
    const module = await loaded;
    expect(typeof module?.trace.getTracerProvider).toBe('function');
    await Promise.resolve();
    expect(load()).toBe(module); // settled: synchronous from then on
  });

  it('a package that is not installed is final: undefined at once, no import() tried', async () => {
    const load = await freshLoad();
    const tried: string[] = [];
    process.getBuiltinModule = ((id: string) =>
      id === 'node:module'
        ? {
            createRequire: () => (specifier: string) => {
              tried.push(specifier);
              throw Object.assign(new Error(`Cannot find module '${specifier}'`), {
                code: 'MODULE_NOT_FOUND',
              });
            },
          }
        : real(id)) as typeof process.getBuiltinModule;
    expect(load()).toBeUndefined();
    expect(load()).toBeUndefined();
    expect(tried).toEqual(['@opentelemetry/api']);
  });

  it('a require that fails otherwise (not a file URL, a runtime without it) falls back to import()', async () => {
    const load = await freshLoad();
    process.getBuiltinModule = ((id: string) =>
      id === 'node:module'
        ? {
            createRequire: () => {
              throw new TypeError(
                'The argument must be a file URL object, a file URL string, or an absolute path',
              );
            },
          }
        : real(id)) as typeof process.getBuiltinModule;
    const loaded = load();
    expect(loaded).toBeInstanceOf(Promise);
    expect(typeof (await loaded)?.trace.getTracerProvider).toBe('function');
  });
});
