/**
 * The conformance table, unchanged, against real runtimes other than Node: Hono with `@gatehouse/hono`
 * on Bun and on workerd, and a plain fetch handler using core's `errorResponse()` on `Bun.serve` and
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
import {
  createTestCertificateAuthority,
  createTestIssuer,
  generateTestCertificate,
  type IssuerServer,
  type TestIssuer,
} from '@gatehouse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyVariant,
  AUDIENCE,
  DPOP_ROWS,
  DPOP_VARIANT_CONFIG,
  DPOP_VARIANTS,
  mintSenderTokens,
  mintStepUpTokens,
  mintTokens,
  ROWS,
  type Row,
  STEP_UP_ROWS,
  type StepUpFixtures,
  send,
  type TestResponse,
  VARIANTS,
  type VariantConfig,
} from '../src/index.js';
import type { RuntimeApp, ServeConfig, VariantServeConfig } from '../src/runtimes/serve-config.js';
import { type RuntimeProcess, startBun, startDeno, startWorkerd } from './runtime-processes.js';
import {
  caseLabel,
  checkResponse,
  comparable,
  DEFAULT_ALGS,
  type Deployment,
  deploy,
  METADATA_PATH,
  METADATA_URL,
} from './support.js';

type AnyRow = Row<AnyVariant, StepUpFixtures>;

const TARGETS = [
  { name: 'hono-bun', app: 'hono', start: startBun },
  { name: 'fetch-bun', app: 'fetch', start: startBun },
  { name: 'fetch-deno', app: 'fetch', start: startDeno },
  { name: 'hono-workerd', app: 'hono', start: startWorkerd },
] as const satisfies readonly {
  name: string;
  app: RuntimeApp;
  start: (c: ServeConfig) => Promise<RuntimeProcess>;
}[];
const NOT_SENT: readonly AnyVariant[] = ['proxy', 'mtls', 'large'];
const SERVED = [...VARIANTS, ...DPOP_VARIANTS].filter((v) => !NOT_SENT.includes(v));
/** Targets whose runtime answers a request without `Host` itself, before the app runs, and how. */
const REFUSES_HOSTLESS: Readonly<Record<string, string>> = {
  'hono-bun': "Hono's router cannot route Bun's relative URL: 404",
  'hono-workerd': 'workerd answers 400',
};
const RESOURCE_METADATA = { scopesSupported: ['read:users', 'write:users'], resourceName: 'Conformance API' };

let issuer: TestIssuer;
let issuerServer: IssuerServer;
let fixtures: StepUpFixtures;
/** A JWKS endpoint that is down: it counts connections and drops each one. */
let deadJwks: Server;
let deadHits = 0;
const processes = new Map<string, RuntimeProcess>();
const deployments = new Map<string, Deployment>();
const deployment = (target: string, variant: AnyVariant) => deployments.get(`${target}/${variant}`)!;

/** The verifier options a variant's deployment gets, as in support.ts `deploy()`, without functions. */
function verifierOptions(variant: AnyVariant, deadJwksUri: string): VerifierOptions {
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

function serveConfig(variant: AnyVariant, deadJwksUri: string): VariantServeConfig {
  const config: VariantConfig = variant in DPOP_VARIANT_CONFIG ? DPOP_VARIANT_CONFIG[variant as never] : {};
  return {
    variant,
    verifier: verifierOptions(variant, deadJwksUri),
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

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
  issuerServer = await issuer.listen();
  deadJwks = createServer((socket) => {
    deadHits++;
    socket.destroy();
  }).listen(0, '127.0.0.1');
  await once(deadJwks, 'listening');
  const deadJwksUri = `http://127.0.0.1:${(deadJwks.address() as { port: number }).port}/jwks`;
  const ca = await createTestCertificateAuthority();
  const serverCertificate = await generateTestCertificate({
    ca,
    commonName: 'localhost',
    hosts: ['127.0.0.1'],
  });
  const sender = await mintSenderTokens(issuer);
  fixtures = {
    ...(await mintTokens(issuer)),
    ...sender,
    ...(await mintStepUpTokens(issuer, sender.keys.main)),
  };
  const env = { issuer, serverCertificate };
  for (const target of TARGETS) {
    const running = await target.start({
      app: target.app,
      variants: SERVED.map((variant) => serveConfig(variant, deadJwksUri)),
    });
    processes.set(target.name, running);
    for (const variant of SERVED) {
      const twin = createVerifier({ ...verifierOptions(variant, deadJwksUri), fetch: issuer.fetch });
      deployments.set(
        `${target.name}/${variant}`,
        remote(`http://127.0.0.1:${running.ports.get(variant)}`, variant, twin),
      );
      // One Express reference per target: outage rows depend on each deployment's own backoff state.
      deployments.set(`express@${target.name}/${variant}`, await deploy(env, 'express', variant));
    }
  }
}, 240_000);

afterAll(async () => {
  await Promise.all([...processes.values()].map((p) => p.close()));
  await Promise.all(
    [...deployments.entries()].filter(([k]) => k.startsWith('express@')).map(([, d]) => d.app.close()),
  );
  await new Promise((resolve) => deadJwks?.close(resolve));
  await issuerServer?.close();
});

async function answer(name: string, d: Deployment, row: AnyRow, sent?: TestResponse) {
  if (sent === undefined && row.warmUp !== undefined) {
    const warm = await send(d.app.url, row.warmUp(fixtures), d.sendContext());
    expect(warm.status, `${name}: the warm-up request is accepted`).toBe(200);
  }
  const before = d.fetches();
  const nonceBefore = d.verifier.dpopNonce();
  const res = sent ?? (await send(d.app.url, row.request(fixtures), d.sendContext()));
  try {
    checkResponse(res, row.expect, {
      context: d.verifier.context,
      algs: d.algs,
      nonces: [nonceBefore, d.verifier.dpopNonce()],
    });
  } catch (err) {
    (err as Error).message = `${name}: ${(err as Error).message}`;
    throw err;
  }
  if (row.variant === 'outage' && row.expect.status !== 503)
    expect(d.fetches() - before, `${name}: answered without fetching keys (0F)`).toBe(0);
  return comparable(res);
}

const rows = ([...ROWS, ...DPOP_ROWS, ...STEP_UP_ROWS] as AnyRow[]).filter(
  (row) => SERVED.includes(row.variant) && row.expect.status !== 431,
);
const title = (row: AnyRow) => `${caseLabel(row.catalogue)} [${row.variant}] ${row.name}`;

describe.each(TARGETS.map((t) => t.name))('conformance: %s answers every row as Express does', (target) => {
  it.each(rows.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const request = row.request(fixtures);
    let sent: TestResponse | undefined;
    if (request.http10 === true && request.headers?.host === undefined && row.warmUp === undefined) {
      const d = deployment(target, row.variant);
      sent = await send(d.app.url, request, d.sendContext()).catch(() => undefined);
      const status = sent?.status;
      if (status === undefined || Number.isNaN(status)) return; // the runtime dropped the half-closed connection
      const refusal = REFUSES_HOSTLESS[target];
      if (refusal !== undefined) {
        expect(status >= 400 && status < 500, refusal).toBe(true);
        return;
      }
    }
    const reference = await answer('express', deployment(`express@${target}`, row.variant), row);
    const own = await answer(target, deployment(target, row.variant), row, sent);
    expect(own, `${target} = Express`).toEqual(reference);
  });

  it('serves the RFC 9728 document as Express does', async () => {
    const own = await send(deployment(target, 'metadata').app.url, { path: METADATA_PATH });
    const reference = await send(deployment(`express@${target}`, 'metadata').app.url, {
      path: METADATA_PATH,
    });
    expect(own.status).toBe(200);
    expect(comparable(own)).toEqual(comparable(reference));
  });
});
