/**
 * The conformance table, unchanged, against the Request-based targets: Hono with `@gatehouse/hono`
 * and a plain fetch handler using core's `errorResponse()`, on Node (this file) — each answer is
 * checked against the row's expectation and core's own error, and must be identical to Express's
 * (status, `WWW-Authenticate`, `Retry-After`, `DPoP-Nonce`, content type, body bytes).
 *
 * Rows of the `proxy` variant are not sent: a Request-based app has no trust-proxy setting (the URL the
 * runtime reports counts, or the `origin` option, whose rows run here).
 */
import {
  createDpopProof,
  createTestCertificateAuthority,
  createTestIssuer,
  generateTestCertificate,
  type TestIssuer,
} from '@gatehouse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyVariant,
  AUDIENCE,
  DPOP_ROWS,
  DPOP_VARIANTS,
  mintSenderTokens,
  mintStepUpTokens,
  mintTokens,
  ROWS,
  type Row,
  STEP_UP_ROWS,
  type StepUpFixtures,
  SUBJECT,
  send,
  VARIANTS,
} from '../src/index.js';
import { startFetchNode, startHonoNode } from '../src/node-fetch-apps.js';
import { caseLabel, checkResponse, comparable, type Deployment, deploy, METADATA_PATH } from './support.js';

type AnyRow = Row<AnyVariant, StepUpFixtures>;

/** The Request-based targets on Node, and the variants they cannot take part in. */
const TARGETS = [
  { name: 'hono-node', start: startHonoNode },
  { name: 'fetch-node', start: startFetchNode },
] as const;
const NOT_SENT: readonly AnyVariant[] = ['proxy'];

let issuer: TestIssuer;
let fixtures: StepUpFixtures;
const deployments = new Map<string, Deployment>();
const deployment = (target: string, variant: AnyVariant) => deployments.get(`${target}/${variant}`)!;

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
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
  for (const variant of [...VARIANTS, ...DPOP_VARIANTS]) {
    if (NOT_SENT.includes(variant)) continue;
    for (const target of TARGETS) {
      // One Express reference per target: outage rows depend on each deployment's own backoff state.
      deployments.set(`express@${target.name}/${variant}`, await deploy(env, 'express', variant));
      deployments.set(`${target.name}/${variant}`, await deploy(env, 'express', variant, target.start));
    }
  }
});

afterAll(async () => {
  await Promise.all([...deployments.values()].map((d) => d.app.close()));
});

/** Send `row` to a deployment and check it; returns what must equal Express's answer. */
async function answer(name: string, d: Deployment, row: AnyRow) {
  if (row.warmUp !== undefined) {
    const warm = await send(d.app.url, row.warmUp(fixtures), d.sendContext());
    expect(warm.status, `${name}: the warm-up request is accepted`).toBe(200);
  }
  const before = d.fetches();
  const nonceBefore = d.verifier.dpopNonce();
  const res = await send(d.app.url, row.request(fixtures), d.sendContext());
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
  return row.expect.status === 431 ? { status: res.status } : comparable(res);
}

const rows = [...ROWS, ...DPOP_ROWS, ...STEP_UP_ROWS].filter(
  (row) => !NOT_SENT.includes(row.variant),
) as AnyRow[];
const title = (row: AnyRow) => `${caseLabel(row.catalogue)} [${row.variant}] ${row.name}`;

describe.each(TARGETS.map((t) => t.name))('conformance: %s answers every row as Express does', (target) => {
  it.each(rows.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const reference = await answer('express', deployment(`express@${target}`, row.variant), row);
    const own = await answer(target, deployment(target, row.variant), row);
    expect(own, `${target} = Express`).toEqual(reference);
  });

  it('serves the RFC 9728 document as Express does, and none when not configured', async () => {
    const [own, reference] = await Promise.all([
      send(deployment(target, 'metadata').app.url, { path: METADATA_PATH }),
      send(deployment(`express@${target}`, 'metadata').app.url, { path: METADATA_PATH }),
    ]);
    expect(own.status).toBe(200);
    expect(comparable(own)).toEqual(comparable(reference));
    expect((await send(deployment(target, 'default').app.url, { path: METADATA_PATH })).status).toBe(404);
  });

  it('D12: answers 20 concurrent identical requests with exactly one 200', async () => {
    const d = deployment(target, 'default');
    const url = `${d.app.url}/me`;
    const proof = createDpopProof({
      key: fixtures.keys.main,
      method: 'GET',
      url,
      accessToken: fixtures.bound,
    });
    const request = { path: '/me', headers: { authorization: `DPoP ${fixtures.bound}`, dpop: proof } };
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => send(d.app.url, request)))).map(
      (res) => res.status,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(19);
  });

  it('keeps serving after a valid request', async () => {
    const res = await send(deployment(target, 'default').app.url, {
      path: '/me',
      headers: { authorization: `Bearer ${fixtures.full}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ subject: SUBJECT });
  });
});
