/**
 * Sender-constrained rows (dpop-cases.ts) on the proof's claims, security catalogue D7–D14 (13 needs
 * two instances): `htm`, `htu` — the URI the adapters pass and the request-target — `iat`, `jti`, the
 * replay of a proof, and `ath`.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { bearer, PAIR, user } from './case-table.js';
import {
  type DpopRow,
  dpopUser,
  FORWARDED,
  FORWARDED_CHAIN,
  nowSeconds,
  proofError,
  urlWith,
  withProof,
} from './dpop-table.js';
import { PUBLIC_ORIGIN } from './sender-fixtures.js';

/** The rows of D7–D14, in the table's order. */
export const CLAIM_ROWS: readonly DpopRow[] = [
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
];
