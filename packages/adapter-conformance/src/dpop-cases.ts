/**
 * The sender-constrained rows of the conformance table: security catalogue section D, cases 1–12 and
 * 14–22 (13 needs two instances sharing a replay store, which no single adapter deployment has), sent
 * to every framework on the variants of `sender-fixtures.ts`.
 *
 * A row's DPoP proof is made when the request is sent, for the URL the client really uses and the
 * deployment's current nonce: `withProof(t, token, overrides)` is a valid proof for `token` with
 * `keys.main`, and each row overrides what its case is about (dpop-table.ts). This file holds the
 * happy paths and D1, and assembles the table from its sections: dpop-proof-cases.ts (D2–D6),
 * dpop-claim-cases.ts (D7–D14), dpop-policy-cases.ts (D15–D21) and mtls-cases.ts (D22).
 *
 * @module
 */
import { SCOPES } from './app.js';
import { bearer, DELEGATION_REFUSED, insufficient, invalidToken, PAIR } from './case-table.js';
import { CLAIM_ROWS } from './dpop-claim-cases.js';
import { POLICY_ROWS } from './dpop-policy-cases.js';
import { PROOF_ROWS } from './dpop-proof-cases.js';
import { type DpopRow, dpopUser, inDpop, withProof } from './dpop-table.js';
import { MTLS_ROWS } from './mtls-cases.js';

/** The sender-constrained table: every section, in order. */
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
  ...PROOF_ROWS,
  ...CLAIM_ROWS,
  ...POLICY_ROWS,
  ...MTLS_ROWS,
];
