/**
 * Sender-constrained rows (dpop-cases.ts) on the deployment's DPoP policy, security catalogue D15–D21:
 * the proof key must be the bound one, server nonces, unbound tokens and `required` mode, the
 * challenge of each mode, a result-cache hit that never skips the proof, size limits, weak keys.
 *
 * @module
 */
import { BARE, bearer, invalidToken, PAIR, user } from './case-table.js';
import type { ProofContext } from './client.js';
import {
  type DpopRow,
  dpopUser,
  inDpop,
  nowSeconds,
  proofError,
  proofFor,
  USE_NONCE,
  urlWith,
  withProof,
} from './dpop-table.js';
import { type Fixtures, nonceStepsBack } from './sender-fixtures.js';

/** The rows of D15–D21, in the table's order. */
export const POLICY_ROWS: readonly DpopRow[] = [
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
];
