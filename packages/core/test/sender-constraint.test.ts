/**
 * Sender-constrained tokens through the verifier (src/sender-constraint.ts and verifier.ts): security
 * catalogue section D, cases 1–22, at the layer where each attack arrives — `authenticate()` with a
 * request, a real loopback HTTP server for header-level cases and races, and a real TLS server with
 * client certificates for mTLS.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, createServer as httpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthInfo,
  certificateThumbprint,
  createVerifier,
  InvalidDpopProofError,
  InvalidTokenError,
  isAuthError,
  MissingTokenError,
  ReplayStoreUnavailableError,
  type RequestLike,
  UseDpopNonceError,
  type VerifierOptions,
} from '../src/index.js';
import { expectAuthError, parseChallenges } from './helpers/assertions.js';
import { makeProof, thumbprintOf } from './helpers/dpop.js';
import { AUDIENCE, claims, ISSUER, jwksOf, MAIN_ALGS, makeKey, signToken } from './helpers/fixtures.js';
import { startApp } from './helpers/http-app.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const URL_ = 'https://api.test/orders';
const ALGS = 'ES256 EdDSA RS256 PS256';
const issuerKey = makeKey('ES256', 'issuer-1');
const dpopKey = makeKey('ES256', 'client-dpop');
let server: JwksServer;
let jkt: string;
let bound: string;
let unbound: string;

beforeAll(async () => {
  server = await startJwksServer(jwksOf(issuerKey));
  jkt = await thumbprintOf(dpopKey);
  bound = signToken(issuerKey, claims({ cnf: { jkt } }));
  unbound = signToken(issuerKey, claims());
});
afterAll(() => server.close());

const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri, ...options });

/** A request carrying `token` under `scheme`, with `proof` (when given) in the DPoP header. */
function req(token: string, proof?: string, scheme = 'DPoP', extra: Partial<RequestLike> = {}): RequestLike {
  return {
    headers: { authorization: `${scheme} ${token}`, ...(proof === undefined ? {} : { dpop: proof }) },
    method: 'GET',
    url: URL_,
    ...extra,
  };
}
const proofFor = (token: string, options: Partial<Parameters<typeof makeProof>[0]> = {}) =>
  makeProof({ key: dpopKey, token, ...options });
const challenges = (error: { headers: Readonly<Record<string, string>> }) =>
  parseChallenges(error.headers['www-authenticate']);

describe('DPoP-bound tokens through authenticate()', () => {
  for (const alg of MAIN_ALGS) {
    it(`accepts a bound token with a valid ${alg} proof and says how it is bound`, async () => {
      const key = makeKey(alg, `client-${alg}`);
      const thumbprint = await thumbprintOf(key);
      const token = signToken(issuerKey, claims({ cnf: { jkt: thumbprint } }));
      const info = await make().authenticate(req(token, makeProof({ key, token })));
      expect(info.confirmation).toEqual({ jkt: thumbprint });
      expect(info.subject).toBe('user-42');
    });
  }

  it('a bearer token has no confirmation', async () => {
    const info = await make().authenticate(req(unbound, undefined, 'Bearer'));
    expect(info.confirmation).toBeUndefined();
  });

  it('D1: a bound token sent as Bearer → 401 bound_token, never 200 (authenticate and verify)', async () => {
    const verifier = make();
    const error = await expectAuthError(verifier.authenticate(req(bound, proofFor(bound), 'Bearer')), {
      type: InvalidTokenError,
      status: 401,
      code: 'invalid_token',
      reason: 'bound_token',
    });
    expect(challenges(error)).toEqual([
      {
        scheme: 'Bearer',
        params: { realm: 'api', error: 'invalid_token', error_description: error.description },
      },
      { scheme: 'DPoP', params: { realm: 'api', algs: ALGS } },
    ]);
    await expectAuthError(verifier.verify(bound), {
      type: InvalidTokenError,
      status: 401,
      code: 'invalid_token',
      reason: 'bound_token',
    });
  });

  it('D2: DPoP scheme without a DPoP header → invalid_dpop_proof before any key fetch', async () => {
    const verifier = make({ jwksUri: server.jwksUri });
    const before = server.jwksHits();
    const error = await expectAuthError(verifier.authenticate(req(bound)), {
      type: InvalidDpopProofError,
      status: 401,
      code: 'invalid_dpop_proof',
      reason: 'dpop_missing',
    });
    expect(server.jwksHits()).toBe(before);
    expect(challenges(error)).toEqual([
      { scheme: 'Bearer', params: { realm: 'api' } },
      {
        scheme: 'DPoP',
        params: {
          realm: 'api',
          error: 'invalid_dpop_proof',
          error_description: error.description,
          algs: ALGS,
        },
      },
    ]);
  });

  it('D4: the configured proof algorithms are advertised in algs', async () => {
    const verifier = make({ dpop: { algorithms: ['ES256', 'PS256'] } });
    const error = await verifier.authenticate({ headers: {} }).catch((e: MissingTokenError) => e);
    expect(challenges(error as MissingTokenError)[1]).toEqual({
      scheme: 'DPoP',
      params: { realm: 'api', algs: 'ES256 PS256' },
    });
  });

  it('D12: the same proof twice → the second is dpop_replay', async () => {
    const verifier = make();
    const proof = proofFor(bound);
    await verifier.authenticate(req(bound, proof));
    await expectAuthError(verifier.authenticate(req(bound, proof)), {
      type: InvalidDpopProofError,
      status: 401,
      code: 'invalid_dpop_proof',
      reason: 'dpop_replay',
    });
    // A fresh proof for the same token still works.
    await verifier.authenticate(req(bound, proofFor(bound)));
  });

  it('D15: a proof made with another key than cnf.jkt → 401 invalid_token (dpop_binding) in the DPoP challenge', async () => {
    const other = makeKey('ES256', 'thief');
    const error = await expectAuthError(
      make().authenticate(req(bound, makeProof({ key: other, token: bound }))),
      {
        type: InvalidTokenError,
        status: 401,
        code: 'invalid_token',
        reason: 'dpop_binding',
        scheme: 'DPoP',
      },
    );
    expect(challenges(error)[1]?.params.algs).toBe(ALGS);
  });

  it('D17: an unbound token under DPoP → not_bound; with mode required an unbound Bearer token → 401 with a DPoP challenge only, no fetch', async () => {
    await expectAuthError(make().authenticate(req(unbound, proofFor(unbound))), {
      type: InvalidTokenError,
      status: 401,
      code: 'invalid_token',
      reason: 'not_bound',
      scheme: 'DPoP',
    });
    const verifier = make({ dpop: { mode: 'required' } });
    const before = server.jwksHits();
    const error = await expectAuthError(verifier.authenticate(req(unbound, undefined, 'Bearer')), {
      type: InvalidTokenError,
      status: 401,
      code: 'invalid_token',
      reason: 'binding_required',
      scheme: 'DPoP',
    });
    expect(server.jwksHits()).toBe(before);
    expect(challenges(error).map((c) => c.scheme)).toEqual(['DPoP']);
    // A bound token with its proof passes in required mode.
    expect((await verifier.authenticate(req(bound, proofFor(bound)))).confirmation).toEqual({ jkt });
    // And an unbound one under DPoP does not.
    await expect(verifier.authenticate(req(unbound, proofFor(unbound)))).rejects.toMatchObject({
      reason: 'not_bound',
    });
  });

  it('D18: challenges per mode — allowed: Bearer and DPoP; required: DPoP; disabled: Bearer, and the DPoP scheme is unknown', async () => {
    const missing = async (options: Partial<VerifierOptions>) =>
      (await make(options)
        .authenticate({ headers: {} })
        .catch((e: MissingTokenError) => e)) as MissingTokenError;
    expect((await missing({})).headers['www-authenticate']).toBe(
      `Bearer realm="api", DPoP realm="api", algs="${ALGS}"`,
    );
    expect((await missing({ dpop: { mode: 'required' } })).headers['www-authenticate']).toBe(
      `DPoP realm="api", algs="${ALGS}"`,
    );
    expect((await missing({ dpop: { mode: 'disabled' } })).headers['www-authenticate']).toBe(
      'Bearer realm="api"',
    );
    const disabled = make({ dpop: { mode: 'disabled' } });
    const error = await expectAuthError(disabled.authenticate(req(bound, proofFor(bound))), {
      type: MissingTokenError,
      status: 401,
      code: undefined,
      reason: 'missing_token',
    });
    expect(error.headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('D19: a result-cache hit never skips the proof', async () => {
    const verifier = make();
    await verifier.authenticate(req(bound, proofFor(bound)));
    const hits = server.jwksHits();
    for (const [bad, reason] of [
      [proofFor(bound, { method: 'POST' }), 'dpop_htm'],
      [proofFor(bound, { url: 'https://api.test/other' }), 'dpop_htu'],
      [proofFor(bound, { iat: Math.floor(Date.now() / 1000) - 3600 }), 'dpop_iat'],
      [proofFor('another token'), 'dpop_ath'],
      [proofFor(bound, { signer: makeKey('ES256', 'forger') }), 'dpop_signature'],
    ] as const) {
      await expect(verifier.authenticate(req(bound, bad))).rejects.toMatchObject({ reason });
    }
    const replayed = proofFor(bound);
    await verifier.authenticate(req(bound, replayed));
    await expect(verifier.authenticate(req(bound, replayed))).rejects.toMatchObject({
      reason: 'dpop_replay',
    });
    expect(server.jwksHits()).toBe(hits);
  });

  it('an invalid token under DPoP is reported in the DPoP challenge; a missing scope too', async () => {
    const expired = signToken(issuerKey, claims({ cnf: { jkt }, exp: 1 }));
    await expectAuthError(make().authenticate(req(expired, proofFor(expired))), {
      type: InvalidTokenError,
      status: 401,
      code: 'invalid_token',
      reason: 'expired',
      scheme: 'DPoP',
    });
    const verifier = make();
    const error = await verifier
      .authenticate(req(bound, proofFor(bound)), { scopes: 'admin' })
      .catch((e: { headers: Record<string, string> }) => e);
    const [bearer, dpop] = challenges(error as { headers: Record<string, string> });
    expect(bearer?.params.error).toBeUndefined();
    expect(dpop?.params).toMatchObject({ error: 'insufficient_scope', scope: 'admin', algs: ALGS });
  });

  it('a cnf the verifier cannot check is refused: not an object, an unknown method, a malformed thumbprint', async () => {
    for (const cnf of ['x', [jkt], { jwk: { kty: 'EC' } }, { jkt: 'short' }, { jkt, kid: 'k' }, {}]) {
      const token = signToken(issuerKey, claims({ cnf }));
      await expect(make().verify(token)).rejects.toMatchObject({ reason: 'claim', claim: 'cnf' });
    }
  });
});

describe('replay stores', () => {
  it('an async store is awaited: false → dpop_replay, true → accepted', async () => {
    const seen = new Set<string>();
    const replayStore = {
      record: async (id: string) => {
        await new Promise((r) => setTimeout(r, 1));
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      },
    };
    const verifier = make({ dpop: { replayStore } });
    const proof = proofFor(bound);
    await verifier.authenticate(req(bound, proof));
    await expect(verifier.authenticate(req(bound, proof))).rejects.toMatchObject({ reason: 'dpop_replay' });
  });

  it('a failing or misbehaving store → 503 with Retry-After, never 200', async () => {
    const stores = [
      { record: () => Promise.reject(new Error('connection refused')) },
      {
        record: () => {
          throw new Error('boom');
        },
      },
      { record: () => 'OK' as unknown as boolean },
      { record: () => Promise.resolve(1 as unknown as boolean) },
    ];
    for (const replayStore of stores) {
      const error = await make({ dpop: { replayStore } })
        .authenticate(req(bound, proofFor(bound)))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReplayStoreUnavailableError);
      expect(error).toMatchObject({ status: 503, reason: 'replay_store_unavailable' });
      expect((error as ReplayStoreUnavailableError).headers).toEqual({ 'retry-after': '1' });
      expect((error as ReplayStoreUnavailableError).toJSON().error).toBe('temporarily_unavailable');
    }
  });

  it('records each proof until iat + iatWindow, under an id scoped to the key', async () => {
    const calls: [string, number][] = [];
    const verifier = make({ dpop: { replayStore: { record: (id, at) => calls.push([id, at]) > 0 } } });
    const iat = Math.floor(Date.now() / 1000) - 5;
    await verifier.authenticate(req(bound, proofFor(bound, { iat })));
    expect(calls).toHaveLength(1);
    expect(calls[0]![0]).toMatch(new RegExp(`^${jkt}[^]{1,256}$`));
    expect(calls[0]![1]).toBe((iat + 300) * 1000);
  });
});

describe('over a real HTTP server', () => {
  it('D2: two DPoP header lines → 401 invalid_dpop_proof', async () => {
    const app = await startApp(make());
    try {
      const url = `${app.origin}/orders`;
      const res = await app.request('/orders', {
        headers: {
          authorization: `DPoP ${bound}`,
          dpop: [proofFor(bound, { url }), proofFor(bound, { url })],
        },
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_dpop_proof');
      expect(String(res.headers['www-authenticate'])).toContain(
        'DPoP realm="api", error="invalid_dpop_proof"',
      );
    } finally {
      await app.close();
    }
  });

  it('D12: 20 concurrent requests with one proof → exactly one 200', async () => {
    const app = await startApp(make());
    try {
      const proof = proofFor(bound, { url: `${app.origin}/orders` });
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          app.request('/orders', { headers: { authorization: `DPoP ${bound}`, dpop: proof } }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(19);
      for (const r of results.filter((x) => x.status === 401))
        expect(r.body.error).toBe('invalid_dpop_proof');
    } finally {
      await app.close();
    }
  });

  it('D16: nonces — 401 use_dpop_nonce with DPoP-Nonce, the retry with it → 200; another instance with the same secret accepts it', async () => {
    const secret = 'a nonce secret shared by every API instance!';
    const a = await startApp(make({ dpop: { nonce: { secret } } }));
    const b = await startApp(make({ dpop: { nonce: { secret } } }));
    const c = await startApp(make({ dpop: { nonce: { secret: `${secret}, but another one` } } }));
    try {
      const call = (app: typeof a, nonce?: string) =>
        app.request('/orders', {
          headers: {
            authorization: `DPoP ${bound}`,
            dpop: proofFor(bound, { url: `${app.origin}/orders`, nonce }),
          },
        });
      const first = await call(a);
      expect(first.status).toBe(401);
      expect(first.body.error).toBe('use_dpop_nonce');
      const nonce = first.headers['dpop-nonce'] as string;
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(String(first.headers['www-authenticate'])).toContain('DPoP realm="api", error="use_dpop_nonce"');
      expect((await call(a, nonce)).status).toBe(200);
      expect((await call(b, nonce)).status).toBe(200);
      const refused = await call(c, nonce);
      expect(refused.status).toBe(401);
      expect(refused.headers['dpop-nonce']).not.toBe(nonce);
      const forged = await call(a, `${nonce.slice(0, -1)}${nonce.endsWith('A') ? 'B' : 'A'}`);
      expect(forged.body.error).toBe('use_dpop_nonce');
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('D16: a nonce two steps old is refused with a fresh one', async () => {
    const verifier = make({ dpop: { nonce: { secret: 's'.repeat(32), lifetime: 10 } } });
    const nonce = verifier.dpopNonce()!;
    const realNow = Date.now;
    try {
      Date.now = () => realNow() + 21_000;
      const error = await verifier
        .authenticate(req(bound, proofFor(bound, { nonce, iat: Math.floor(Date.now() / 1000) })))
        .catch((e: UseDpopNonceError) => e);
      expect(error).toBeInstanceOf(UseDpopNonceError);
      expect((error as UseDpopNonceError).nonce).not.toBe(nonce);
    } finally {
      Date.now = realNow;
    }
  });

  it('D20: an oversized DPoP header is refused promptly', async () => {
    const app = await startApp(make());
    try {
      const res = await app.request('/orders', {
        headers: { authorization: `DPoP ${bound}`, dpop: `${proofFor(bound)}${'A'.repeat(9_000)}` },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: 'invalid_dpop_proof',
        error_description: new InvalidDpopProofError('dpop_too_large').description,
      });
    } finally {
      await app.close();
    }
  });
});

/** A self-signed P-256 certificate and its key, made by the `openssl` command (Debian's package). */
function certificate(commonName: string): { cert: string; key: string; der: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${commonName}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    return { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8'), der: new X509Certificate(cert).raw };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('D22: certificate-bound tokens over a real TLS server', () => {
  const serverCert = certificate('localhost');
  const alice = certificate('client-alice');
  const mallory = certificate('client-mallory');
  let tls: Server;
  let port: number;
  let options: Partial<VerifierOptions> = {};
  let token: string;

  beforeAll(async () => {
    token = signToken(issuerKey, claims({ cnf: { 'x5t#S256': certificateThumbprint(alice.der) } }));
    tls = httpsServer(
      { cert: serverCert.cert, key: serverCert.key, requestCert: true, rejectUnauthorized: false },
      async (request, response) => {
        const peer = (request.socket as TLSSocket).getPeerCertificate();
        try {
          const info: AuthInfo = await make(options).authenticate({
            headers: request.headers,
            rawHeaders: request.rawHeaders,
            method: request.method,
            url: `https://127.0.0.1:${port}${request.url}`,
            clientCertificate: peer?.raw,
          });
          response.writeHead(200).end(JSON.stringify({ confirmation: info.confirmation }));
        } catch (error) {
          if (!isAuthError(error)) throw error;
          response.writeHead(error.status, error.headers).end(JSON.stringify(error.toJSON()));
        }
      },
    );
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    port = (tls.address() as AddressInfo).port;
  });
  afterAll(async () => {
    tls.closeAllConnections();
    await new Promise((r) => tls.close(r));
  });

  function call(client?: { cert: string; key: string }, headers: Record<string, string> = {}, auth = token) {
    return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const r = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/orders',
          rejectUnauthorized: false,
          agent: false,
          ...(client ?? {}),
          headers: { authorization: `Bearer ${auth}`, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
          );
        },
      );
      r.on('error', reject);
      r.end();
    });
  }

  it('no certificate → 401, another certificate → 401, the bound certificate → 200', async () => {
    options = {};
    expect(await call()).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(await call(mallory)).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    const ok = await call(alice);
    expect(ok.status).toBe(200);
    expect(ok.body.confirmation).toEqual({ 'x5t#S256': certificateThumbprint(alice.der) });
  });

  it('a Client-Cert header is ignored unless configured, and then it is the only source', async () => {
    const header = { 'client-cert': `:${alice.der.toString('base64')}:` };
    options = {};
    expect((await call(mallory, header)).status).toBe(401);
    options = { mtls: { certificateHeader: 'Client-Cert' } };
    expect((await call(mallory, header)).status).toBe(200);
    expect((await call(alice)).status).toBe(401);
    expect((await call(undefined, { 'client-cert': `:${mallory.der.toString('base64')}:` })).status).toBe(
      401,
    );
    expect((await call(undefined, { 'client-cert': alice.der.toString('base64') })).status).toBe(401);
  });

  it('mode required refuses an unbound token even with a certificate', async () => {
    options = { mtls: { mode: 'required' } };
    const res = await call(alice, {}, unbound);
    expect(res).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
    expect(res.body.error_description).toBe(new InvalidTokenError('binding_required').description);
  });
});
