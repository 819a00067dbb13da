/**
 * The conformance table, unchanged, against the Request-based targets: Hono with `@gatehouse/hono`
 * (requireAuth then requireScope/requireRole, and the same requirements in one middleware with
 * `auth.requireScope()`/`auth.requireRole()`) and a plain fetch handler using core's `errorResponse()`, on Node (this file) — each answer is
 * checked against the row's expectation and core's own error, and must be identical to Express's
 * (status, `WWW-Authenticate`, `Retry-After`, `DPoP-Nonce`, content type, body bytes), by the suite's
 * one runner (runner.ts).
 */
import { createDpopProof } from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';
import { DPOP_ROWS, ROWS, STEP_UP_ROWS, SUBJECT, send } from '../src/index.js';
import { startFetchNode, startHonoNode, startHonoNodeOneLayer } from '../src/node-fetch-apps.js';
import {
  type AnyRow,
  type Exclusion,
  itAnswersEveryRow,
  localTarget,
  referenceName,
  type Suite,
  useSuite,
} from './runner.js';
import { comparable, METADATA_PATH } from './support.js';

const EXCLUDES: readonly Exclusion[] = [
  {
    variants: ['proxy'],
    why: 'a Request-based app has no trust-proxy setting (the URL the runtime reports counts, or the `origin` option, whose rows run)',
  },
];

/** The Request-based targets on Node; each has an Express reference of its own. */
const SUITE: Suite = {
  targets: [
    localTarget('hono-node', 'express', { start: startHonoNode, excludes: EXCLUDES }),
    localTarget('hono-node-one-layer', 'express', { start: startHonoNodeOneLayer, excludes: EXCLUDES }),
    localTarget('fetch-node', 'express', { start: startFetchNode, excludes: EXCLUDES }),
  ],
  reference: 'own',
};
const run = useSuite(SUITE);

describe('conformance: the Request-based targets on Node answer every row as Express does', () => {
  itAnswersEveryRow(run, SUITE, [...ROWS, ...DPOP_ROWS, ...STEP_UP_ROWS] as AnyRow[]);
});

describe.each(SUITE.targets)('conformance: $name', (entry) => {
  const target = entry.name;
  it('serves the RFC 9728 document as Express does, and none when not configured', async () => {
    const [own, reference] = await Promise.all([
      send(run.deployment(target, 'metadata').app.url, { path: METADATA_PATH }),
      send(run.deployment(referenceName(SUITE, entry), 'metadata').app.url, { path: METADATA_PATH }),
    ]);
    expect(own.status).toBe(200);
    expect(comparable(own)).toEqual(comparable(reference));
    expect((await send(run.deployment(target, 'default').app.url, { path: METADATA_PATH })).status).toBe(404);
  });

  it('D12: answers 20 concurrent identical requests with exactly one 200', async () => {
    const { fixtures } = run.env();
    const d = run.deployment(target, 'default');
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
    const res = await send(run.deployment(target, 'default').app.url, {
      path: '/me',
      headers: { authorization: `Bearer ${run.env().fixtures.full}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ subject: SUBJECT });
  });
});
