/**
 * The options table every adapter's `test/options.test.ts` runs: frozen defaults, a bad option refused with
 * its name, a mistyped option refused with the closest known name, an empty scope requirement refused, and a
 * misconfigured issuer explained when `warmUp` is on. Each adapter passes its own way of building the
 * middleware ({@link OptionsSubject.mount}): at construction (Express, Koa: `requireAuth()` throws) or at
 * registration (Fastify: the plugin's registration fails).
 *
 * Imported by the adapters' tests by relative path (`../../adapter-conformance/src/options-cases.js`): this
 * package depends on the adapters, so they cannot depend on it.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeySetError } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';

/** Issuer and audience every case starts from. */
export const OPTIONS_BASE = Object.freeze({
  issuer: 'https://id.example.com',
  audience: 'https://api.example.com',
});

/** What {@link OptionsSubject.mount} gives back: the adapter's scope requirement, its readiness, its end. */
export interface MountedOptions {
  /** The adapter's `requireScope(scopes, options)`. */
  requireScope(scopes: unknown, options?: unknown): unknown;
  /** Resolves when the adapter is ready (`requireAuth().ready()`); a registration adapter is ready once mounted. */
  ready(): Promise<unknown>;
  /** Stop what `mount` started. */
  close(): Promise<void>;
}

/** One adapter, as the table drives it. */
export interface OptionsSubject {
  /**
   * When bad options are refused: `construction` (`mount` throws synchronously; `ready()` rejects for an issuer
   * found misconfigured, and `onWarning` reports it) or `registration` (`mount` rejects, having closed what it
   * started).
   */
  readonly at: 'construction' | 'registration';
  /** The adapter's exported `DEFAULTS`. */
  readonly defaults: object;
  /** What `DEFAULTS` must equal. */
  readonly expectedDefaults: object;
  /** When given, `DEFAULTS` must be this very object (core's `ADAPTER_DEFAULTS`). */
  readonly sharedDefaults?: object;
  /** A wrongly typed option and the TypeError message that names it. */
  readonly badOption: { readonly options: Readonly<Record<string, unknown>>; readonly message: string };
  /** Build (or register and start) the adapter with `options`. */
  mount(options: Readonly<Record<string, unknown>>): MountedOptions | Promise<MountedOptions>;
}

/** One row of the table: a test, in a group, for the adapters it applies to. */
export interface OptionCase {
  /** The `describe` the test sits in. */
  group(subject: OptionsSubject): string;
  /** The test's title. */
  title(subject: OptionsSubject): string;
  /** Only for adapters that refuse options at this point; every adapter when absent. */
  readonly only?: OptionsSubject['at'];
  run(subject: OptionsSubject): Promise<void>;
}

/**
 * A loopback issuer whose metadata names another issuer (localhost where the API says 127.0.0.1).
 *
 * @example
 * ```ts
 * const issuer = await misconfiguredIssuer();
 * try { requireAuth({ issuer: issuer.issuer, audience, warmUp: true }); } finally { await issuer.close(); }
 * ```
 */
export async function misconfiguredIssuer(): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    const port = (server.address() as AddressInfo).port;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ issuer: `http://localhost:${port}/oidc`, jwks_uri: `http://localhost:${port}/jwks` }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oidc`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** `mount(options)` must fail with `message`: a synchronous throw at construction, a rejection at registration. */
async function expectRefused(
  subject: OptionsSubject,
  options: Readonly<Record<string, unknown>>,
  message: string,
): Promise<void> {
  if (subject.at === 'construction') expect(() => subject.mount(options)).toThrow(message);
  else await expect(Promise.resolve().then(() => subject.mount(options))).rejects.toThrow(message);
}

const NEVER_SILENT = () => 'a misconfiguration is never silent';

/**
 * The table, in the order the tests run.
 *
 * @example
 * ```ts
 * for (const row of OPTION_CASES) if (row.only === undefined) console.log(row.title(subject));
 * ```
 */
export const OPTION_CASES: readonly OptionCase[] = Object.freeze([
  {
    group: () => 'DEFAULTS',
    title: (s) =>
      s.sharedDefaults === undefined
        ? 'is frozen and protective by default'
        : 'is frozen, protective by default, and the shared adapter defaults',
    async run(s) {
      expect(Object.isFrozen(s.defaults)).toBe(true);
      expect(s.defaults).toEqual(s.expectedDefaults);
      if (s.sharedDefaults !== undefined) expect(s.defaults).toBe(s.sharedDefaults);
    },
  },
  {
    group: () => 'option validation at construction',
    title: () => 'names the bad option in a TypeError',
    only: 'construction',
    async run(s) {
      await expectRefused(s, { ...OPTIONS_BASE, ...s.badOption.options }, s.badOption.message);
      expect(() => s.mount({ ...OPTIONS_BASE, clockTolerance: 301 })).toThrow(TypeError);
      const mounted = (await s.mount(OPTIONS_BASE)) as MountedOptions;
      expect(() => mounted.requireScope('a', { mode: 'some' })).toThrow(
        '"mode" option must be "all" or "any"',
      );
      expect(() => mounted.requireScope([42])).toThrow(TypeError);
      await mounted.close();
    },
  },
  {
    group: () => 'option validation at registration',
    title: () => 'fails registration with a TypeError naming the option',
    only: 'registration',
    run: (s) => expectRefused(s, { ...OPTIONS_BASE, ...s.badOption.options }, s.badOption.message),
  },
  {
    group: () => 'option validation at registration',
    title: () => 'refuses bad requireScope arguments when the route is declared',
    only: 'registration',
    async run(s) {
      const mounted = await s.mount(OPTIONS_BASE);
      expect(() => mounted.requireScope('a', { mode: 'some' })).toThrow(
        '"mode" option must be "all" or "any"',
      );
      await mounted.close();
    },
  },
  {
    group: NEVER_SILENT,
    title: () => 'refuses a mistyped option with the closest known name, and an empty scope requirement',
    async run(s) {
      await expectRefused(
        s,
        { ...OPTIONS_BASE, jwksUrl: 'https://id.example.com/jwks' },
        'unknown option "jwksUrl" (did you mean "jwksUri"?)',
      );
      const mounted = await s.mount(OPTIONS_BASE);
      for (const empty of ['', '  ', []]) expect(() => mounted.requireScope(empty)).toThrow(TypeError);
      await mounted.close();
    },
  },
  {
    group: NEVER_SILENT,
    title: () => 'ready() rejects with the explanation; warmUp reports it through onWarning at once',
    only: 'construction',
    async run(s) {
      const issuer = await misconfiguredIssuer();
      try {
        const warnings: KeySetError[] = [];
        const mounted = await s.mount({
          ...OPTIONS_BASE,
          issuer: issuer.issuer,
          warmUp: true,
          onWarning: (w: KeySetError) => warnings.push(w),
        });
        const error = await mounted.ready().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(KeySetError);
        expect((error as KeySetError).code).toBe('issuer_mismatch');
        expect((error as KeySetError).message).toContain(`"${issuer.issuer}"`);
        expect(warnings.map((w) => w.code)).toEqual(['issuer_mismatch']);
      } finally {
        await issuer.close();
      }
    },
  },
  {
    group: NEVER_SILENT,
    title: () => 'with warmUp, registration fails with the explanation',
    only: 'registration',
    async run(s) {
      const issuer = await misconfiguredIssuer();
      try {
        const error = await Promise.resolve()
          .then(() => s.mount({ ...OPTIONS_BASE, issuer: issuer.issuer, warmUp: true, onWarning: false }))
          .then(
            () => undefined,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(KeySetError);
        expect((error as KeySetError).code).toBe('issuer_mismatch');
      } finally {
        await issuer.close();
      }
    },
  },
]);

/**
 * Declare the table's tests for `subject`, grouped in `describe` blocks; `extra` adds an adapter's own
 * groups (title → tests) before the group named `before` (at the end when absent).
 *
 * @example
 * ```ts
 * describeOptionCases({
 *   at: 'construction',
 *   defaults: DEFAULTS,
 *   expectedDefaults: { ...ADAPTER_DEFAULTS },
 *   badOption: { options: { optional: 'yes' }, message: '"optional" option must be a boolean' },
 *   mount: (options) => {
 *     const auth = requireAuth(options as never);
 *     return { requireScope: (s, o) => requireScope(s as never, o as never), ready: () => auth.ready(), close: async () => {} };
 *   },
 * });
 * ```
 */
export function describeOptionCases(
  subject: OptionsSubject,
  extra?: { readonly before: string; readonly group: string; readonly tests: () => void },
): void {
  const groups = new Map<string, OptionCase[]>();
  for (const row of OPTION_CASES) {
    if (row.only !== undefined && row.only !== subject.at) continue;
    const group = row.group(subject);
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  let extraDeclared = extra === undefined;
  for (const [group, rows] of groups) {
    if (!extraDeclared && extra!.before === group) {
      describe(extra!.group, extra!.tests);
      extraDeclared = true;
    }
    describe(group, () => {
      for (const row of rows) it(row.title(subject), () => row.run(subject));
    });
  }
  if (!extraDeclared) describe(extra!.group, extra!.tests);
}
