/**
 * Runs every row of the conformance table — section A (`ROWS`) and the sender-constrained section D
 * (`DPOP_ROWS`) — against real servers of every framework in `FRAMEWORKS` on loopback (https with client
 * certificates for mTLS), through the suite's one runner (runner.ts), and checks (a) each answer against the row's expectation and core's own error
 * for it and (b) that all their answers are identical: status, `WWW-Authenticate`, `Retry-After`,
 * `DPoP-Nonce`, content type and body bytes (catalogue case A51).
 */
import { createDpopProof } from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';
import {
  type AnyVariant,
  AUDIENCE,
  DPOP_ROWS,
  DPOP_VARIANTS,
  FORWARDED_CHAIN,
  FRAMEWORKS,
  type Framework,
  NONCE_LIFETIME,
  nonceStepsBack,
  ROWS,
  STEP_UP_ROWS,
  SUBJECT,
  send,
  VARIANTS,
} from '../src/index.js';
import { itAnswersEveryRow, localTarget, type Suite, useSuite } from './runner.js';
import { comparable, expectedError, METADATA_PATH, METADATA_URL, parseChallenges } from './support.js';

/** Every Node framework, each compared with Express's answer to the same row. */
const SUITE: Suite = {
  targets: FRAMEWORKS.map((framework) => localTarget(framework, framework)),
  reference: 'shared',
};
const run = useSuite(SUITE);
const deployment = (framework: Framework, variant: AnyVariant) => run.deployment(framework, variant);

describe('conformance: every adapter answers every row identically', () => {
  itAnswersEveryRow(run, SUITE, ROWS);

  it('covers every catalogue case the issue lists', () => {
    const covered = new Set(ROWS.flatMap((row) => row.catalogue));
    for (const n of [1, 2, 3, 4, 5, 7, 44, 48, 49, 61, 62]) expect(covered, `case A${n}`).toContain(n);
    for (const variant of VARIANTS)
      expect(
        ROWS.some((row) => row.variant === variant),
        variant,
      ).toBe(true);
  });

  it.each(FRAMEWORKS)('%s keeps serving after refusing 100 KB of headers', async (framework) => {
    const { app } = deployment(framework, 'default');
    // Node answers 431 and closes the connection; with request bytes still unread, the close can arrive
    // as a reset before the client reads the 431. Either way the server must stay up.
    const outcome = await send(app.url, {
      path: '/me',
      headers: { authorization: `Bearer ${run.env().fixtures.huge}` },
    }).then(
      (res) => res.status,
      (err: NodeJS.ErrnoException) => err.code,
    );
    expect([431, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    const res = await send(app.url, {
      path: '/me',
      headers: { authorization: `Bearer ${run.env().fixtures.full}` },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ subject: SUBJECT });
  });
});

describe('conformance: sender-constrained tokens (DPoP, mTLS), identically', () => {
  itAnswersEveryRow(run, SUITE, DPOP_ROWS);

  it('covers section D cases 1–12 and 14–22, and every variant', () => {
    const covered = new Set(DPOP_ROWS.flatMap((row) => row.catalogue));
    for (let n = 1; n <= 22; n++) if (n !== 13) expect(covered, `case D${n}`).toContain(`D${n}`);
    for (const variant of DPOP_VARIANTS)
      expect(
        DPOP_ROWS.some((row) => row.variant === variant),
        variant,
      ).toBe(true);
  });

  it.each(FRAMEWORKS)(
    'D12: %s answers 20 concurrent identical requests with exactly one 200',
    async (framework) => {
      const d = deployment(framework, 'default');
      const url = `${d.app.url}/me`;
      const proof = createDpopProof({
        key: run.env().fixtures.keys.main,
        method: 'GET',
        url,
        accessToken: run.env().fixtures.bound,
      });
      const request = {
        path: '/me',
        headers: { authorization: `DPoP ${run.env().fixtures.bound}`, dpop: proof },
      };
      const answers = await Promise.all(Array.from({ length: 20 }, () => send(d.app.url, request)));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(19);
      const replay = expectedError(
        { status: 401, error: 'invalid_dpop_proof', reason: 'dpop_replay' },
        d.verifier.context,
      )!;
      for (const res of answers.filter((r) => r.status === 401)) {
        expect(JSON.parse(res.body)).toEqual(replay.toJSON());
        expect(res.headers['www-authenticate']).toBe(replay.wwwAuthenticate);
      }
    },
  );

  // Not identical, by the frameworks' own design: with `trust proxy` on and a forwarded header holding
  // several hops, Express and Koa take the first (client-side, spoofable behind an appending proxy),
  // Fastify the last (the nearest proxy's). The adapters pass each framework's view on; the `origin`
  // rows show the answers are identical once the public origin is configured.
  it.each([
    ['express', 'first'],
    ['fastify', 'last'],
    ['koa', 'first'],
    ['nestjs-express', 'first'],
    ['nestjs-fastify', 'last'],
  ] as const)(
    'D9: %s, trust proxy, multi-valued X-Forwarded-Host/-Proto: the %s hop counts (set origin)',
    async (framework, hop) => {
      const d = deployment(framework, 'proxy');
      const answer = async (url: string) => {
        const proof = createDpopProof({
          key: run.env().fixtures.keys.main,
          method: 'GET',
          url,
          accessToken: run.env().fixtures.bound,
        });
        const headers = {
          authorization: `DPoP ${run.env().fixtures.bound}`,
          dpop: proof,
          ...FORWARDED_CHAIN,
        };
        return (await send(d.app.url, { path: '/me', headers })).status;
      };
      const [first, last] = [await answer('https://evil.test/me'), await answer('http://api.real/me')];
      expect({ first, last }).toEqual(
        hop === 'first' ? { first: 200, last: 401 } : { first: 401, last: 200 },
      );
    },
  );

  it("nonce: the deployments' nonce follows the documented stateless scheme, the same on every framework", () => {
    const nonce = nonceStepsBack(0);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const framework of FRAMEWORKS)
      expect(deployment(framework, 'nonce').verifier.dpopNonce()).toBe(nonce);
    expect(nonceStepsBack(1, Date.now() / 1000)).toBe(nonceStepsBack(0, Date.now() / 1000 - NONCE_LIFETIME));
  });
});

describe('conformance: RFC 9470 step-up, identically', () => {
  itAnswersEveryRow(run, SUITE, STEP_UP_ROWS);

  it('covers section E cases 9 and 15', () => {
    const covered = new Set(STEP_UP_ROWS.flatMap((row) => row.catalogue));
    for (const n of ['E9', 'E15'] as const) expect(covered, `case ${n}`).toContain(n);
  });
});

describe('conformance: RFC 9728 protected resource metadata', () => {
  const expected = {
    resource: AUDIENCE,
    authorization_servers: [] as string[],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
    scopes_supported: ['read:users', 'write:users'],
    resource_name: 'Conformance API',
  };

  it(`serves ${METADATA_PATH} without a token, identically`, async () => {
    expected.authorization_servers = [run.env().issuer.issuer];
    const answers = [];
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'metadata').app.url, { path: METADATA_PATH });
      expect(res.status, framework).toBe(200);
      expect(res.headers['content-type'], framework).toBe('application/json; charset=utf-8');
      expect(res.headers['access-control-allow-origin'], framework).toBe('*');
      expect(JSON.parse(res.body), framework).toEqual(expected);
      answers.push(comparable(res));
    }
    for (const answer of answers) expect(answer).toEqual(answers[0]);
  });

  it('names the served document in every challenge', async () => {
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'metadata').app.url, { path: '/me' });
      expect(parseChallenges(res.headers['www-authenticate']).Bearer?.resource_metadata, framework).toBe(
        METADATA_URL,
      );
    }
  });

  it('does not serve the document when none is configured', async () => {
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'default').app.url, { path: METADATA_PATH });
      expect(res.status, framework).toBe(404);
    }
  });
});
