/**
 * The conformance table, unchanged, against real runtimes other than Node: Hono with `@gatehouse/hono`
 * on Bun (requireAuth then requireScope, and each requirement in one middleware) and on workerd, and a plain fetch handler using core's `errorResponse()` on `Bun.serve` and
 * `Deno.serve`. Each runtime process serves every variant (one server per variant) with its own
 * verifier, which fetches the keys from the test issuer listening on loopback. Each answer is checked
 * against the row's expectation and core's own error, and must be identical to Express's.
 *
 * Not sent to these runtimes, because the server and not the adapter decides them: the `proxy`
 * variant (no trust-proxy setting in a fetch handler: set `origin`), `mtls` (none of these runtimes
 * hands a TLS client certificate to a fetch handler: use `mtls.certificateHeader`, whose rows run),
 * `large` and the 431 rows (header size limits are the runtime's).
 *
 * HTTP/1.0 requests without `Host` (sent on a half-closed socket): Bun hands the app a relative URL
 * and Deno one for `localhost`, which core ignores as the Node adapters do; but Hono cannot route
 * Bun's relative URL (404) and workerd answers 400 before any app code runs, and Bun and Deno may drop
 * the answer to a half-closed connection. Those rows therefore accept, besides Express's answer, the
 * runtime's own refusal: a closed connection, or (Hono on Bun, workerd) a 4xx of the runtime.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:net';
import { createVerifier, type Verifier, type VerifierOptions } from '@gatehouse/core';
import type { IssuerServer, TestIssuer } from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';
import {
  type AnyVariant,
  DPOP_ROWS,
  DPOP_VARIANT_CONFIG,
  ROWS,
  STEP_UP_ROWS,
  send,
  type VariantConfig,
} from '../src/index.js';
import type { RuntimeApp, ServeConfig, VariantServeConfig } from '../src/runtimes/serve-config.js';
import {
  type AnyRow,
  type Exclusion,
  itAnswersEveryRow,
  referenceName,
  type Suite,
  type Target,
  useSuite,
} from './runner.js';
import { type RuntimeProcess, startBun, startDeno, startWorkerd } from './runtime-processes.js';
import { comparable, DEFAULT_ALGS, type Deployment, METADATA_PATH, METADATA_URL } from './support.js';

const EXCLUDES: readonly Exclusion[] = [
  { variants: ['proxy'], why: 'no trust-proxy setting in a fetch handler: set `origin`' },
  {
    variants: ['mtls'],
    why: 'none of these runtimes hands a TLS client certificate to a fetch handler: use `mtls.certificateHeader`, whose rows run',
  },
  { variants: ['large'], why: "header size limits are the runtime's" },
  { rows: (row) => row.expect.status === 431, why: "header size limits are the runtime's" },
];
const RESOURCE_METADATA = { scopesSupported: ['read:users', 'write:users'], resourceName: 'Conformance API' };

let issuer: TestIssuer;
let issuerServer: IssuerServer;
/** A JWKS endpoint that is down: it counts connections and drops each one. */
let deadJwks: Server;
let deadJwksUri: string;
let deadHits = 0;

/** The verifier options a variant's deployment gets, as in support.ts `deploy()`, without functions. */
function verifierOptions(variant: AnyVariant): VerifierOptions {
  const config: VariantConfig = variant in DPOP_VARIANT_CONFIG ? DPOP_VARIANT_CONFIG[variant as never] : {};
  return {
    ...issuer.verifierOptions(),
    allowInsecureHttp: true,
    ...(variant === 'outage' ? { jwksUri: deadJwksUri } : {}),
    ...(variant === 'sources' ? { tokenSources: { query: true, body: true } } : {}),
    ...(variant === 'metadata' ? { resourceMetadata: METADATA_URL } : {}),
    ...(config.dpop === undefined ? {} : { dpop: config.dpop }),
    ...(config.mtls === undefined ? {} : { mtls: config.mtls }),
  };
}

function serveConfig(variant: AnyVariant): VariantServeConfig {
  const config: VariantConfig = variant in DPOP_VARIANT_CONFIG ? DPOP_VARIANT_CONFIG[variant as never] : {};
  return {
    variant,
    verifier: verifierOptions(variant),
    ...(config.origin === undefined ? {} : { origin: config.origin }),
    ...(variant === 'metadata' ? { resourceMetadata: RESOURCE_METADATA } : {}),
  };
}

/** A deployment in another process: its answers are checked against a twin verifier with the same options. */
function remote(url: string, variant: AnyVariant, twin: Verifier): Deployment {
  const config: VariantConfig = variant in DPOP_VARIANT_CONFIG ? DPOP_VARIANT_CONFIG[variant as never] : {};
  return {
    app: { url, close: async () => {} },
    verifier: twin,
    algs: config.dpop?.algorithms?.join(' ') ?? DEFAULT_ALGS,
    fetches: () => (variant === 'outage' ? deadHits : 0),
    sendContext: () => ({ nonce: twin.dpopNonce() }),
  };
}

/**
 * A runtime process serving every variant (one server per variant) with its own verifier, which fetches
 * the keys from the test issuer listening on loopback; `refusal`: how its runtime answers a request
 * without `Host` itself, before the app runs.
 */
function remoteTarget(
  name: string,
  app: RuntimeApp,
  start: (c: ServeConfig) => Promise<RuntimeProcess>,
  refusal?: string,
): Target {
  return {
    name,
    excludes: EXCLUDES,
    hostless: refusal === undefined ? {} : { refusal },
    async deploy(_env, variants) {
      const running = await start({ app, variants: variants.map(serveConfig) });
      const deployments = new Map<AnyVariant, Deployment>();
      for (const variant of variants) {
        const twin = createVerifier({ ...verifierOptions(variant), fetch: issuer.fetch });
        deployments.set(variant, remote(`http://127.0.0.1:${running.ports.get(variant)}`, variant, twin));
      }
      return { deployments, close: () => running.close() };
    },
  };
}

const SUITE: Suite = {
  targets: [
    remoteTarget('hono-bun', 'hono', startBun, "Hono's router cannot route Bun's relative URL: 404"),
    remoteTarget(
      'hono-one-layer-bun',
      'hono-one-layer',
      startBun,
      "Hono's router cannot route Bun's relative URL: 404",
    ),
    remoteTarget('fetch-bun', 'fetch', startBun),
    remoteTarget('fetch-deno', 'fetch', startDeno),
    remoteTarget('hono-workerd', 'hono', startWorkerd, 'workerd answers 400'),
  ],
  reference: 'own',
  async prepare(testIssuer) {
    issuer = testIssuer;
    issuerServer = await issuer.listen();
    deadJwks = createServer((socket) => {
      deadHits++;
      socket.destroy();
    }).listen(0, '127.0.0.1');
    await once(deadJwks, 'listening');
    deadJwksUri = `http://127.0.0.1:${(deadJwks.address() as { port: number }).port}/jwks`;
  },
  async cleanup() {
    await new Promise((resolve) => deadJwks?.close(resolve));
    await issuerServer?.close();
  },
};
const run = useSuite(SUITE);

describe('conformance: Bun, Deno and workerd answer every row as Express does', () => {
  itAnswersEveryRow(run, SUITE, [...ROWS, ...DPOP_ROWS, ...STEP_UP_ROWS] as AnyRow[]);
});

describe.each(SUITE.targets)('conformance: $name', (target) => {
  it('serves the RFC 9728 document as Express does', async () => {
    const own = await send(run.deployment(target.name, 'metadata').app.url, { path: METADATA_PATH });
    const reference = await send(run.deployment(referenceName(SUITE, target), 'metadata').app.url, {
      path: METADATA_PATH,
    });
    expect(own.status).toBe(200);
    expect(comparable(own)).toEqual(comparable(reference));
  });
});
