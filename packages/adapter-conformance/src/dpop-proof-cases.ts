/**
 * Sender-constrained rows (dpop-cases.ts) on the proof as a JWS, security catalogue D2–D6: exactly one
 * `DPoP` header, its `typ`, `alg`, `jwk` and signature.
 *
 * @module
 */
import { PAIR } from './case-table.js';
import { type DpopRow, dpopUser, proofError, proofFor, tamper, withProof } from './dpop-table.js';

/** The rows of D2–D6, in the table's order. */
export const PROOF_ROWS: readonly DpopRow[] = [
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
];
