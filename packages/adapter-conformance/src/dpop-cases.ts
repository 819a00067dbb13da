/**
 * The sender-constrained rows of the conformance table: security catalogue section D, cases 1–12 and
 * 14–22 (13 needs two instances sharing a replay store, which no single adapter deployment has), sent
 * to every framework on the variants of `sender-fixtures.ts`.
 *
 * A row's DPoP proof is made when the request is sent, for the URL the client really uses and the
 * deployment's current nonce: `withProof(t, token, overrides)` is a valid proof for `token` with
 * `keys.main`, and each row overrides what its case is about.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { AuthErrorReason } from '@gatehouse/core';
import { clientCertHeader, createDpopProof, type DpopProofOptions } from '@gatehouse/testing';
import { SCOPES } from './app.js';
import {
  BARE,
  bearer,
  DELEGATION_REFUSED,
  type Expectation,
  insufficient,
  invalidToken,
  PAIR,
  type Row,
  user,
} from './cases.js';
import type { ProofContext, TestRequest } from './client.js';
import {
  type AnyVariant,
  CLIENT_CERT_HEADER,
  type Fixtures,
  nonceStepsBack,
  PUBLIC_ORIGIN,
} from './sender-fixtures.js';

/** A row of the sender-constrained table. */
export type DpopRow = Row<AnyVariant, Fixtures>;

/** What a row changes in the valid proof: any `createDpopProof` option, fixed or per send. */
type ProofOverrides = Partial<DpopProofOptions>;
type Overrides = ProofOverrides | ((ctx: ProofContext) => ProofOverrides);

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A `DPoP` header function: a valid proof for `token`, then the overrides. */
const proofFor =
  (t: Fixtures, token: string, overrides: Overrides = {}) =>
  (ctx: ProofContext): string =>
    createDpopProof({
      key: t.keys.main,
      method: 'GET',
      url: ctx.url,
      accessToken: token,
      nonce: ctx.nonce,
      ...(typeof overrides === 'function' ? overrides(ctx) : overrides),
    });

/** `Authorization: DPoP <token>` on `/me` (or `req.path`) with the proof {@link proofFor} makes. */
function withProof(t: Fixtures, token: string, overrides: Overrides = {}, req: Partial<TestRequest> = {}) {
  return {
    path: '/me',
    ...req,
    headers: { authorization: `DPoP ${token}`, ...req.headers },
    dpop: proofFor(t, token, overrides),
  } satisfies TestRequest;
}

/** The request URL with another part (`{ host: 'localhost' }`, `{ pathname: '/other' }`, …). */
const urlWith = (url: string, part: Partial<Pick<URL, 'protocol' | 'host' | 'port' | 'pathname'>>) =>
  Object.assign(new URL(url), part).href;

const dpopUser = (scopes: readonly string[], actor: string | null = null) => user(scopes, actor, 'dpop');
const proofError = (reason: Extract<AuthErrorReason, `dpop_${string}`>) =>
  ({ status: 401, error: 'invalid_dpop_proof', reason }) as const;
const USE_NONCE = { status: 401, error: 'use_dpop_nonce', reason: 'dpop_nonce' } as const;
/** The same error, for a request that used the `DPoP` scheme: in the `DPoP` challenge. */
const inDpop = (expectation: Expectation): Expectation => ({ ...expectation, scheme: 'dpop' }) as Expectation;

const FORWARDED = { 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https' };
/** Two hops: what a client sent, then what an appending proxy added. */
export const FORWARDED_CHAIN = {
  'x-forwarded-host': 'evil.test, api.real',
  'x-forwarded-proto': 'https, http',
};

export const DPOP_ROWS: readonly DpopRow[] = [
  // Happy paths: each proof algorithm, a delegated token, the form route
  ...(
    [
      ['ES256', 'main', 'bound'],
      ['EdDSA', 'eddsa', 'boundEddsa'],
      ['PS256', 'ps256', 'boundPs256'],
      ['RS256', 'rs256', 'boundRs256'],
    ] as const
  ).map(
    ([alg, key, token]): DpopRow => ({
      name: `bound token with a valid ${alg} proof`,
      catalogue: [],
      variant: 'default',
      request: (t) => withProof(t, t[token], { key: t.keys[key] }),
      expect: dpopUser(PAIR),
    }),
  ),
  {
    name: 'impersonation token bound to a DPoP key: 200 with its actor',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.boundDelegated),
    expect: dpopUser(PAIR, 'support-7'),
  },
  {
    name: 'bound token on a scoped route',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.boundReadOnly, {}, { path: '/scoped/one' }),
    expect: dpopUser([SCOPES.one]),
  },
  {
    name: 'lower-case dpop scheme',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ ...withProof(t, t.bound), headers: { authorization: `dpop ${t.bound}` } }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'bound token with a proof of htm POST on the form route',
    catalogue: ['D7'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { method: 'POST' }, { path: '/form', form: { note: 'hi' } }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'anonymous mode: a bound token with its proof is verified',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.bound, {}, { path: '/optional' }),
    expect: dpopUser(PAIR),
  },

  // Errors after the proof: in the DPoP challenge
  {
    name: 'bound read-only token on a route needing both scopes: 403 in the DPoP challenge',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.boundReadOnly, {}, { path: '/scoped/all' }),
    expect: inDpop(insufficient(SCOPES.pair.join(' '))),
  },
  {
    name: 'bound impersonation token on a no-delegation route: 403 in the DPoP challenge',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.boundDelegated, {}, { path: '/no-delegation' }),
    expect: inDpop(DELEGATION_REFUSED),
  },
  {
    name: 'expired bound token with a valid proof: invalid_token in the DPoP challenge',
    catalogue: [],
    variant: 'default',
    request: (t) => withProof(t, t.boundExpired),
    expect: inDpop(invalidToken('expired')),
  },

  // D1. A bound token is never a bearer token
  {
    name: 'bound token sent as Bearer',
    catalogue: ['D1'],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.bound) }),
    expect: invalidToken('bound_token'),
  },
  {
    name: 'bound token sent as Bearer with a valid proof',
    catalogue: ['D1'],
    variant: 'default',
    request: (t) => ({ ...withProof(t, t.bound), headers: bearer(t.bound) }),
    expect: invalidToken('bound_token'),
  },
  {
    name: 'bound token in the query, query enabled',
    catalogue: ['D1'],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.bound}` }),
    expect: invalidToken('bound_token'),
  },

  // D2. Exactly one proof
  {
    name: 'DPoP scheme without a DPoP header',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: `DPoP ${t.bound}` } }),
    expect: proofError('dpop_missing'),
  },
  {
    name: 'DPoP scheme without a DPoP header, keys unreachable: refused before any fetch',
    catalogue: ['D2'],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: { authorization: `DPoP ${t.bound}` } }),
    expect: proofError('dpop_missing'),
  },
  {
    name: 'anonymous mode: DPoP scheme without a proof is refused, not let through',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => ({ path: '/optional', headers: { authorization: `DPoP ${t.bound}` } }),
    expect: proofError('dpop_missing'),
  },
  {
    name: 'empty DPoP header',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => ({ ...withProof(t, t.bound), dpop: () => '' }),
    expect: proofError('dpop_missing'),
  },
  {
    name: 'two DPoP header lines',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => {
      const proof = proofFor(t, t.bound);
      return { ...withProof(t, t.bound), dpop: (ctx) => [proof(ctx), proof(ctx)] };
    },
    expect: proofError('dpop_multiple'),
  },
  {
    name: 'two proofs comma-joined in one DPoP header',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => {
      const proof = proofFor(t, t.bound);
      return { ...withProof(t, t.bound), dpop: (ctx) => `${proof(ctx)}, ${proof(ctx)}` };
    },
    expect: proofError('dpop_multiple'),
  },
  {
    name: 'DPoP header that is not a JWS',
    catalogue: ['D2'],
    variant: 'default',
    request: (t) => ({ ...withProof(t, t.bound), dpop: () => 'not-a-proof' }),
    expect: proofError('dpop_malformed'),
  },

  // D3. typ
  ...(['JWT', 'at+jwt', undefined] as const).map(
    (typ): DpopRow => ({
      name: `proof typ ${typ ?? 'absent'}`,
      catalogue: ['D3'],
      variant: 'default',
      request: (t) => withProof(t, t.bound, { header: { typ } }),
      expect: proofError('dpop_typ'),
    }),
  ),

  // D4. alg
  ...(['none', 'HS256', 'RS384'] as const).map(
    (alg): DpopRow => ({
      name: `proof alg ${alg}`,
      catalogue: ['D4'],
      variant: 'default',
      request: (t) => withProof(t, t.bound, { alg }),
      expect: proofError('dpop_algorithm'),
    }),
  ),
  {
    name: 'required: a PS256 proof outside the configured ES256 EdDSA (advertised in algs)',
    catalogue: ['D4', 'D17'],
    variant: 'required',
    request: (t) => withProof(t, t.boundPs256, { key: t.keys.ps256 }),
    expect: proofError('dpop_algorithm'),
  },
  {
    name: 'required: an EdDSA proof inside the configured algorithms',
    catalogue: ['D4', 'D17'],
    variant: 'required',
    request: (t) => withProof(t, t.boundEddsa, { key: t.keys.eddsa }),
    expect: dpopUser(PAIR),
  },

  // D5. jwk
  {
    name: 'proof jwk with a private member (d)',
    catalogue: ['D5'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { header: { jwk: { ...t.keys.main.publicJwk, d: 'AAAA' } } }),
    expect: proofError('dpop_key'),
  },
  {
    name: 'proof jwk of a symmetric key (kty oct)',
    catalogue: ['D5'],
    variant: 'default',
    request: (t) =>
      withProof(t, t.bound, { header: { jwk: { kty: 'oct', k: 'c2VjcmV0LWtleS0xMjM0NTY3ODkw' } } }),
    expect: proofError('dpop_key'),
  },
  {
    name: 'proof without jwk',
    catalogue: ['D5'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { header: { jwk: undefined } }),
    expect: proofError('dpop_key'),
  },
  {
    name: 'proof jwk (EC P-256) not matching alg EdDSA',
    catalogue: ['D5'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { alg: 'EdDSA' }),
    expect: proofError('dpop_key'),
  },

  // D6. signature
  {
    name: 'proof naming the bound key, signed by another key',
    catalogue: ['D6'],
    variant: 'default',
    request: (t) =>
      withProof(t, t.bound, { key: t.keys.other, header: { jwk: { ...t.keys.main.publicJwk } } }),
    expect: proofError('dpop_signature'),
  },
  {
    name: 'proof with a tampered signature',
    catalogue: ['D6'],
    variant: 'default',
    request: (t) => {
      const proof = proofFor(t, t.bound);
      return { ...withProof(t, t.bound), dpop: (ctx) => tamper(proof(ctx)) };
    },
    expect: proofError('dpop_signature'),
  },

  // D7. htm
  {
    name: 'proof htm POST on a GET request',
    catalogue: ['D7'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { method: 'POST' }),
    expect: proofError('dpop_htm'),
  },
  {
    name: 'proof htm get (case-sensitive)',
    catalogue: ['D7'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { method: 'get' }),
    expect: proofError('dpop_htm'),
  },
  {
    name: 'proof htm GET on the form POST route',
    catalogue: ['D7'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { method: 'GET' }, { path: '/form', form: { note: 'hi' } }),
    expect: proofError('dpop_htm'),
  },

  // D8. htu
  ...(
    [
      ['another host (localhost for 127.0.0.1)', { host: 'localhost' }],
      ['another port', { port: '1' }],
      ['another path', { pathname: '/other' }],
      ['another scheme', { protocol: 'https:' }],
      ['the path with a trailing slash', { pathname: '/me/' }],
    ] as const
  ).map(
    ([what, part]): DpopRow => ({
      name: `proof htu with ${what}`,
      catalogue: ['D8'],
      variant: 'default',
      request: (t) => withProof(t, t.bound, (ctx) => ({ url: urlWith(ctx.url, part) })),
      expect: proofError('dpop_htu'),
    }),
  ),
  {
    name: 'request query ignored: proof htu without it',
    catalogue: ['D8'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, {}, { path: '/me?page=2&sort=desc' }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'proof htu with its own query and fragment',
    catalogue: ['D8'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, (ctx) => ({ claims: { htu: `${ctx.url}?other=1#frag` } })),
    expect: dpopUser(PAIR),
  },
  {
    name: 'proof htu with upper-case scheme and a percent-encoded unreserved character',
    catalogue: ['D8'],
    variant: 'default',
    request: (t) =>
      withProof(t, t.bound, (ctx) => ({
        claims: { htu: ctx.url.replace('http:', 'HTTP:').replace('/me', '/%6De') },
      })),
    expect: dpopUser(PAIR),
  },

  // D9. The URI the adapters pass: the configured origin, or the framework's trust-proxy view
  {
    name: 'origin: a proof naming the configured public origin',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: `${PUBLIC_ORIGIN}/me` }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'origin: a proof naming the public origin with its default port',
    catalogue: ['D9', 'D8'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { claims: { htu: `${PUBLIC_ORIGIN}:443/me` } }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'origin: a proof naming the loopback URL the client really used',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'origin: spoofed Host evil.test with a proof for http://evil.test/me',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: 'http://evil.test/me' }, { headers: { host: 'evil.test' } }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'origin: forwarded host and proto with a proof for https://evil.test/me',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: 'https://evil.test/me' }, { headers: FORWARDED }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'no trust proxy: X-Forwarded-Host/-Proto ignored, a proof for https://evil.test/me refused',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { url: 'https://evil.test/me' }, { headers: FORWARDED }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'no trust proxy: with X-Forwarded-Host/-Proto, the loopback URL is still the one',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, {}, { headers: FORWARDED }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'no origin, no trust proxy: the Host header is the origin the client addressed (set origin to pin it)',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { url: 'http://evil.test/me' }, { headers: { host: 'evil.test' } }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'trust proxy: X-Forwarded-Host/-Proto honoured, a proof for https://evil.test/me passes',
    catalogue: ['D9'],
    variant: 'proxy',
    request: (t) => withProof(t, t.bound, { url: 'https://evil.test/me' }, { headers: FORWARDED }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'trust proxy: with X-Forwarded-Host/-Proto, a proof for the loopback URL is refused',
    catalogue: ['D9'],
    variant: 'proxy',
    request: (t) => withProof(t, t.bound, {}, { headers: FORWARDED }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'trust proxy: without forwarded headers, the loopback URL',
    catalogue: ['D9'],
    variant: 'proxy',
    request: (t) => withProof(t, t.bound),
    expect: dpopUser(PAIR),
  },

  // D9. The request-target: of an absolute-form one only the path counts (RFC 9112 §3.2.2); with no
  // Host (HTTP/1.0) and no origin there is no URL, so no proof matches
  {
    name: 'absolute-form request-target http://evil.test/me, proof for the loopback URL (the Host header counts)',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, {}, { target: 'http://evil.test/me' }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'absolute-form request-target http://evil.test/me, proof for it',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { url: 'http://evil.test/me' }, { target: 'http://evil.test/me' }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'origin: absolute-form request-target naming the public origin, proof for it',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) =>
      withProof(t, t.bound, { url: `${PUBLIC_ORIGIN}/me` }, { target: `${PUBLIC_ORIGIN}/me?page=2` }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'origin: absolute-form request-target http://evil.test/me, proof for it',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: 'http://evil.test/me' }, { target: 'http://evil.test/me' }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'origin: multi-valued forwarded headers change nothing',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: `${PUBLIC_ORIGIN}/me` }, { headers: FORWARDED_CHAIN }),
    expect: dpopUser(PAIR),
  },
  {
    name: 'HTTP/1.0 without Host: no origin is known, a proof for http://undefined/me is refused',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { url: 'http://undefined/me' }, { http10: true }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'HTTP/1.0 without Host: a proof for http:///me is refused',
    catalogue: ['D9'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { claims: { htu: 'http:///me' } }, { http10: true }),
    expect: proofError('dpop_htu'),
  },
  {
    name: 'HTTP/1.0 without Host: an unbound Bearer token needs no URL',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.full), http10: true }),
    expect: user(PAIR),
  },
  {
    name: 'origin: HTTP/1.0 without Host, a proof naming the public origin',
    catalogue: ['D9'],
    variant: 'origin',
    request: (t) => withProof(t, t.bound, { url: `${PUBLIC_ORIGIN}/me` }, { http10: true }),
    expect: dpopUser(PAIR),
  },

  // D10. iat
  ...(
    [
      ['an hour old', () => ({ iat: nowSeconds() - 3600 })],
      ['two minutes ahead (leeway 30 s)', () => ({ iat: nowSeconds() + 120 })],
      ['a string', () => ({ claims: { iat: String(nowSeconds()) } })],
      ['absent', () => ({ claims: { iat: undefined } })],
    ] as const
  ).map(
    ([what, overrides]): DpopRow => ({
      name: `proof iat ${what}`,
      catalogue: ['D10'],
      variant: 'default',
      request: (t) => withProof(t, t.bound, overrides),
      expect: proofError('dpop_iat'),
    }),
  ),
  {
    name: 'proof iat 10 s ahead, within the leeway',
    catalogue: ['D10'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, () => ({ iat: nowSeconds() + 10 })),
    expect: dpopUser(PAIR),
  },

  // D11. jti
  ...(
    [
      ['absent', { claims: { jti: undefined } }],
      ['of 257 characters', () => ({ jti: randomBytes(193).toString('base64url').slice(0, 257) })],
      ['a number', { claims: { jti: 7 } }],
      ['empty', { claims: { jti: '' } }],
    ] as const
  ).map(
    ([what, overrides]): DpopRow => ({
      name: `proof jti ${what}`,
      catalogue: ['D11'],
      variant: 'default',
      request: (t) => withProof(t, t.bound, overrides),
      expect: proofError('dpop_jti'),
    }),
  ),
  {
    name: 'proof jti of 256 characters',
    catalogue: ['D11'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, () => ({ jti: randomBytes(192).toString('base64url') })),
    expect: dpopUser(PAIR),
  },

  // D12. replay (20 concurrent requests: a test of its own)
  {
    name: 'the same request twice: the second is a replay',
    catalogue: ['D12'],
    variant: 'default',
    request: (t) => ({ ...withProof(t, t.bound), replay: true }),
    expect: proofError('dpop_replay'),
  },
  {
    name: 'nonce: the same request (with a current nonce) twice',
    catalogue: ['D12', 'D16'],
    variant: 'nonce',
    request: (t) => ({ ...withProof(t, t.bound), replay: true }),
    expect: proofError('dpop_replay'),
  },

  // D14. ath
  {
    name: 'proof without ath',
    catalogue: ['D14'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { accessToken: undefined }),
    expect: proofError('dpop_ath'),
  },
  {
    name: 'proof whose ath is the hash of another token',
    catalogue: ['D14'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { accessToken: t.boundReadOnly }),
    expect: proofError('dpop_ath'),
  },

  // D15. The proof key must be the bound one
  {
    name: "valid proof made with another key than the token's cnf.jkt",
    catalogue: ['D15'],
    variant: 'default',
    request: (t) => withProof(t, t.bound, { key: t.keys.other }),
    expect: inDpop(invalidToken('dpop_binding')),
  },

  // D16. Server nonces
  {
    name: 'nonce: a proof without nonce gets use_dpop_nonce and the current DPoP-Nonce',
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) => withProof(t, t.bound, { nonce: undefined }),
    expect: USE_NONCE,
  },
  {
    name: "nonce: a proof with the deployment's current nonce",
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) => withProof(t, t.bound),
    expect: dpopUser(PAIR),
  },
  {
    name: "nonce: the previous step's nonce is still accepted",
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) => withProof(t, t.bound, () => ({ nonce: nonceStepsBack(1) })),
    expect: dpopUser(PAIR),
  },
  {
    name: 'nonce: an expired nonce (two steps old)',
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) => withProof(t, t.bound, () => ({ nonce: nonceStepsBack(2) })),
    expect: USE_NONCE,
  },
  {
    name: 'nonce: a forged nonce (one character changed)',
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) =>
      withProof(t, t.bound, (ctx) => ({
        nonce: `${ctx.nonce!.slice(0, -1)}${ctx.nonce!.endsWith('A') ? 'B' : 'A'}`,
      })),
    expect: USE_NONCE,
  },
  {
    name: 'nonce: an unbound Bearer token needs no proof',
    catalogue: ['D16'],
    variant: 'nonce',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: user(PAIR),
  },

  // D17. Unbound tokens under DPoP; mode required
  {
    name: 'unbound token under the DPoP scheme with a valid proof',
    catalogue: ['D17'],
    variant: 'default',
    request: (t) => withProof(t, t.full),
    expect: inDpop(invalidToken('not_bound')),
  },
  {
    name: 'required: an unbound Bearer token',
    catalogue: ['D17'],
    variant: 'required',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: invalidToken('binding_required'),
  },
  {
    name: 'required: a DPoP-bound token sent as Bearer',
    catalogue: ['D17', 'D1'],
    variant: 'required',
    request: (t) => ({ path: '/me', headers: bearer(t.bound) }),
    expect: invalidToken('binding_required'),
  },
  {
    name: 'required: no token, a bare DPoP challenge only',
    catalogue: ['D17', 'D18'],
    variant: 'required',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'required: an unbound token under the DPoP scheme',
    catalogue: ['D17'],
    variant: 'required',
    request: (t) => withProof(t, t.full),
    expect: inDpop(invalidToken('not_bound')),
  },
  {
    name: 'required: a bound token with its proof',
    catalogue: ['D17'],
    variant: 'required',
    request: (t) => withProof(t, t.bound),
    expect: dpopUser(PAIR),
  },

  // D18. Challenges per mode
  {
    name: 'allowed: an invalid Bearer token gets a Bearer error challenge and a bare DPoP one',
    catalogue: ['D18'],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.expired) }),
    expect: invalidToken('expired'),
  },
  {
    name: 'disabled: the DPoP scheme is unknown (bare 401, Bearer challenge only)',
    catalogue: ['D18'],
    variant: 'disabled',
    request: (t) => withProof(t, t.bound),
    expect: BARE,
  },
  {
    name: 'disabled: no token, a Bearer challenge only',
    catalogue: ['D18'],
    variant: 'disabled',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'disabled: an unbound Bearer token',
    catalogue: ['D18'],
    variant: 'disabled',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: user(PAIR),
  },
  {
    name: 'disabled: a DPoP-bound token as Bearer is still refused',
    catalogue: ['D18', 'D1'],
    variant: 'disabled',
    request: (t) => ({ path: '/me', headers: bearer(t.bound) }),
    expect: invalidToken('bound_token'),
  },

  // D19. A result-cache hit never skips the proof
  ...(
    [
      ['htm', () => ({ method: 'POST' }), 'dpop_htm'],
      ['htu', () => (ctx: ProofContext) => ({ url: urlWith(ctx.url, { pathname: '/other' }) }), 'dpop_htu'],
      ['iat', () => () => ({ iat: nowSeconds() - 3600 }), 'dpop_iat'],
      ['jti', () => ({ claims: { jti: undefined } }), 'dpop_jti'],
      [
        'signature',
        (t: Fixtures) => ({ key: t.keys.other, header: { jwk: { ...t.keys.main.publicJwk } } }),
        'dpop_signature',
      ],
    ] as const
  ).map(
    ([what, overrides, reason]): DpopRow => ({
      name: `token in the result cache, bad proof ${what}`,
      catalogue: ['D19'],
      variant: 'default',
      warmUp: (t) => withProof(t, t.bound),
      request: (t) => withProof(t, t.bound, overrides(t)),
      expect: proofError(reason),
    }),
  ),
  {
    name: 'token in the result cache, proof for another token (ath)',
    catalogue: ['D19', 'D14'],
    variant: 'default',
    warmUp: (t) => withProof(t, t.bound),
    request: (t) => withProof(t, t.bound, { accessToken: t.full }),
    expect: proofError('dpop_ath'),
  },
  {
    name: 'token in the result cache, proof made with another key',
    catalogue: ['D19', 'D15'],
    variant: 'default',
    warmUp: (t) => withProof(t, t.bound),
    request: (t) => withProof(t, t.bound, { key: t.keys.other }),
    expect: inDpop(invalidToken('dpop_binding')),
  },
  {
    name: 'token in the result cache, no proof',
    catalogue: ['D19', 'D2'],
    variant: 'default',
    warmUp: (t) => withProof(t, t.bound),
    request: (t) => ({ path: '/me', headers: { authorization: `DPoP ${t.bound}` } }),
    expect: proofError('dpop_missing'),
  },
  {
    name: 'token in the result cache, replayed request',
    catalogue: ['D19', 'D12'],
    variant: 'default',
    warmUp: (t) => withProof(t, t.bound),
    request: (t) => ({ ...withProof(t, t.bound), replay: true }),
    expect: proofError('dpop_replay'),
  },

  // D20. Size
  {
    name: 'a 9 KB DPoP header',
    catalogue: ['D20'],
    variant: 'default',
    request: (t) => {
      const proof = proofFor(t, t.bound);
      return { ...withProof(t, t.bound), dpop: (ctx) => `${proof(ctx)}${'A'.repeat(9_000)}` };
    },
    expect: proofError('dpop_too_large'),
  },
  {
    name: 'a 9 KB DPoP header, keys unreachable: refused before any fetch',
    catalogue: ['D20'],
    variant: 'outage',
    request: (t) => ({ ...withProof(t, t.bound), dpop: () => `x${'A'.repeat(9_000)}` }),
    expect: proofError('dpop_too_large'),
  },
  {
    name: 'a proof with 10,000 JSON members (256 KiB header limit)',
    catalogue: ['D20'],
    variant: 'large',
    request: (t) =>
      withProof(t, t.bound, {
        claims: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`m${i}`, i])),
      }),
    expect: proofError('dpop_too_large'),
  },
  {
    name: 'a 6 KB proof within the cap (400 extra members)',
    catalogue: ['D20'],
    variant: 'default',
    request: (t) =>
      withProof(t, t.bound, {
        claims: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`m${i}`, i])),
      }),
    expect: dpopUser(PAIR),
  },

  // D21. Weak keys
  {
    name: 'proof signed with a 1024-bit RSA key',
    catalogue: ['D21'],
    variant: 'default',
    request: (t) => withProof(t, t.boundWeakRsa, { key: t.keys.weakRsa }),
    expect: proofError('dpop_key'),
  },
  {
    name: 'proof signed with a secp256k1 key as ES256',
    catalogue: ['D21'],
    variant: 'default',
    request: (t) => withProof(t, t.boundSecp256k1, { key: t.keys.secp256k1 }),
    expect: proofError('dpop_key'),
  },

  // D22. Certificate-bound tokens
  {
    name: 'mtls: certificate-bound token with the bound client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound), certificate: t.alice }),
    expect: user(PAIR, null, 'mtls'),
  },
  {
    name: 'mtls: certificate-bound token without a client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound) }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: certificate-bound token with another client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound), certificate: t.mallory }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: Client-Cert header naming the bound certificate is ignored when not configured',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.alice) },
      certificate: t.mallory,
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: an unbound token with a client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.full), certificate: t.mallory }),
    expect: user(PAIR),
  },
  {
    name: 'mtls: a DPoP proof for the https URL (the adapters see the TLS socket)',
    catalogue: ['D22', 'D8'],
    variant: 'mtls',
    request: (t) => withProof(t, t.bound),
    expect: dpopUser(PAIR),
  },
  {
    name: 'mtls: token bound to a certificate and a DPoP key, both presented',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ ...withProof(t, t.doublyBound), certificate: t.alice }),
    expect: user(PAIR, null, 'dpop+mtls'),
  },
  {
    name: 'mtls: token bound to a certificate and a DPoP key, another certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ ...withProof(t, t.doublyBound), certificate: t.mallory }),
    expect: inDpop(invalidToken('certificate')),
  },
  {
    name: 'Client-Cert header configured: the bound certificate in it',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.alice) },
    }),
    expect: user(PAIR, null, 'mtls'),
  },
  {
    name: 'Client-Cert header configured: another certificate in it',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.mallory) },
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'Client-Cert header configured: not a structured-field byte sequence',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: t.alice.der.toString('base64') },
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'Client-Cert header configured: no header',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound) }),
    expect: invalidToken('certificate'),
  },
];

/** The proof with one bit of its signature's first byte flipped (canonical base64url kept). */
function tamper(proof: string): string {
  const dot = proof.lastIndexOf('.');
  const signature = Buffer.from(proof.slice(dot + 1), 'base64url');
  signature[0]! ^= 0x01;
  return `${proof.slice(0, dot + 1)}${signature.toString('base64url')}`;
}
