/**
 * The conformance table: requests and the answer every adapter must give, with the security-catalogue
 * cases (section A) each row covers (A61–A62: the `roles` claim and `requireRole`); the rows on how the
 * token is sent (cases 1–7) are in `request-cases.ts`, the sender-constrained rows (section D) in
 * `dpop-cases.ts`, and the table's types and helpers in `case-table.ts`.
 * Expectations are data (status, OAuth error, reason, scope); the suite turns a reason into core's
 * fixed description, so a row fails if an adapter reports another cause.
 *
 * Variants are apps built on differently configured verifiers:
 * - `default`: header tokens only, Node's 16 KiB header limit;
 * - `sources`: query and form-body tokens enabled (RFC 6750 §2.2–2.3);
 * - `large`: like `default`, with a 256 KiB header limit, so a 100 KB token reaches the adapter;
 * - `outage`: every key fetch fails (so a row answered without 503 fetched nothing);
 * - `metadata`: serves RFC 9728 metadata and names it in every challenge.
 *
 * @module
 */
import { ROLES, SCOPES } from './app.js';
import {
  BARE,
  bearer,
  DELEGATION_REFUSED,
  INJECTION,
  INSUFFICIENT_ROLE,
  insufficient,
  invalidRequest,
  invalidToken,
  ok,
  PAIR,
  type Row,
  UNAVAILABLE,
  user,
  withRoles,
} from './case-table.js';
import { REQUEST_ROWS } from './request-cases.js';

/** The table. */
export const ROWS: readonly Row[] = [
  // Happy paths
  {
    name: 'valid token',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: user(PAIR),
  },
  {
    name: 'valid token, form POST route',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/form', headers: bearer(t.full), form: { note: 'hi' } }),
    expect: user(PAIR),
  },
  {
    name: 'valid token, scope granted',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/one', headers: bearer(t.readOnly) }),
    expect: user([SCOPES.one]),
  },
  {
    name: 'valid token, all scopes granted',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/all', headers: bearer(t.full) }),
    expect: user(PAIR),
  },
  {
    name: 'mode any: one of the scopes is enough',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/any', headers: bearer(t.readOnly) }),
    expect: user([SCOPES.one]),
  },
  {
    name: 'delegated token on a route that allows delegation',
    catalogue: [48],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.delegated) }),
    expect: user(PAIR, 'support-7'),
  },
  {
    name: 'anonymous mode: no token passes',
    catalogue: [],
    variant: 'default',
    request: () => ({ path: '/optional' }),
    expect: ok({ anonymous: true }),
  },
  {
    name: 'anonymous mode: a valid token is verified',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/optional', headers: bearer(t.readOnly) }),
    expect: user([SCOPES.one]),
  },
  {
    name: 'anonymous mode: a present but invalid token is refused',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/optional', headers: bearer(t.expired) }),
    expect: invalidToken('expired'),
  },
  {
    name: 'anonymous mode: a malformed header is refused',
    catalogue: [6],
    variant: 'default',
    request: () => ({ path: '/optional', headers: { authorization: 'Bearer a b' } }),
    expect: invalidRequest('bad_syntax'),
  },
  {
    name: 'anonymous request on a scoped route',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/optional/scoped' }),
    expect: BARE,
  },

  ...REQUEST_ROWS,

  // Invalid tokens (the order of checks is core's; the adapters must only carry the answer)
  {
    name: 'expired token',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.expired) }),
    expect: invalidToken('expired'),
  },
  {
    name: 'token for another audience',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.wrongAudience) }),
    expect: invalidToken('audience'),
  },
  {
    name: 'tampered signature',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.tampered) }),
    expect: invalidToken('signature'),
  },
  {
    name: 'unknown signing key',
    catalogue: [],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.unknownKey) }),
    expect: invalidToken('key_not_found'),
  },
  {
    name: 'alg none, keys unreachable: refused before any fetch',
    catalogue: [],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: bearer(t.algNone) }),
    expect: invalidToken('algorithm'),
  },
  {
    name: 'b64token syntax broken',
    catalogue: [6],
    variant: 'default',
    request: () => ({ path: '/me', headers: { authorization: 'Bearer a\tb' } }),
    expect: invalidRequest('bad_syntax'),
  },

  // 44. Scopes
  {
    name: 'required scope missing',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/all', headers: bearer(t.readOnly) }),
    expect: insufficient(SCOPES.pair.join(' ')),
  },
  {
    name: 'look-alike scopes do not satisfy read:users',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/one', headers: bearer(t.lookalike) }),
    expect: insufficient(SCOPES.one),
  },
  {
    name: 'scope claim as an array grants nothing',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/one', headers: bearer(t.scopeArray) }),
    expect: insufficient(SCOPES.one),
  },
  {
    name: 'scope claim as a number grants nothing',
    catalogue: [44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/any', headers: bearer(t.scopeNumber) }),
    expect: insufficient(SCOPES.pair.join(' ')),
  },

  // 48. No-delegation routes
  {
    name: 'delegated token on a no-delegation route',
    catalogue: [48],
    variant: 'default',
    request: (t) => ({ path: '/no-delegation', headers: bearer(t.delegated) }),
    expect: DELEGATION_REFUSED,
  },
  {
    name: 'delegated token on a no-delegation scoped route',
    catalogue: [48],
    variant: 'default',
    request: (t) => ({ path: '/no-delegation/scoped', headers: bearer(t.delegated) }),
    expect: DELEGATION_REFUSED,
  },
  {
    name: 'direct token on a no-delegation route',
    catalogue: [48],
    variant: 'default',
    request: (t) => ({ path: '/no-delegation', headers: bearer(t.full) }),
    expect: user(PAIR),
  },

  // 49. Token-controlled text never reaches a header or a description
  {
    name: 'issuer claim carrying CRLF and quotes',
    catalogue: [49],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.injectedIssuer) }),
    expect: invalidToken('issuer'),
  },
  {
    name: 'sub and custom claim carrying CRLF and quotes, scope missing',
    catalogue: [49, 44],
    variant: 'default',
    request: (t) => ({ path: '/scoped/one', headers: bearer(t.injectedClaims) }),
    expect: insufficient(SCOPES.one),
  },
  {
    name: 'query token carrying CRLF, query enabled',
    catalogue: [49, 6],
    variant: 'sources',
    request: () => ({ path: `/me?access_token=${encodeURIComponent(INJECTION)}` }),
    expect: invalidRequest('bad_syntax'),
  },

  // Keys unavailable → 503 with Retry-After, never 401
  {
    name: 'valid token while keys cannot be fetched',
    catalogue: [],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: UNAVAILABLE,
  },
  {
    name: 'tampered token while keys cannot be fetched',
    catalogue: [],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: bearer(t.tampered) }),
    expect: UNAVAILABLE,
  },

  // Roles (a `roles` claim) and requireRole: catalogue A61 (claim shape), A62 (required roles)
  {
    name: 'role held',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/one', headers: bearer(t.admin) }),
    expect: withRoles([SCOPES.one], [ROLES.one]),
  },
  {
    name: 'all roles held, in another order',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/all', headers: bearer(t.bothRoles) }),
    expect: withRoles([SCOPES.one], ['auditor', 'admin']),
  },
  {
    name: 'mode any: one of the roles is enough',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/any', headers: bearer(t.auditor) }),
    expect: withRoles([], ['auditor']),
  },
  {
    name: 'required role missing',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/one', headers: bearer(t.auditor) }),
    expect: INSUFFICIENT_ROLE,
  },
  {
    name: 'one of all required roles missing',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/all', headers: bearer(t.admin) }),
    expect: INSUFFICIENT_ROLE,
  },
  {
    name: 'token without a roles claim on a role route',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/any', headers: bearer(t.full) }),
    expect: INSUFFICIENT_ROLE,
  },
  {
    name: 'look-alike roles do not satisfy admin',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/one', headers: bearer(t.lookalikeRoles) }),
    expect: INSUFFICIENT_ROLE,
  },
  {
    name: 'a role does not stand in for a missing scope',
    catalogue: [62, 44],
    variant: 'default',
    request: (t) => ({ path: '/roles/scoped', headers: bearer(t.auditor) }),
    expect: insufficient(SCOPES.one),
  },
  {
    name: 'scope and role both held',
    catalogue: [62],
    variant: 'default',
    request: (t) => ({ path: '/roles/scoped', headers: bearer(t.admin) }),
    expect: withRoles([SCOPES.one], [ROLES.one]),
  },
  {
    name: "delegated token carries the subject's roles",
    catalogue: [62, 48],
    variant: 'default',
    request: (t) => ({ path: '/roles/one', headers: bearer(t.delegatedAdmin) }),
    expect: withRoles(PAIR, [ROLES.one], 'support-7'),
  },
  {
    name: 'roles claim as a string makes the token invalid',
    catalogue: [61],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.rolesString) }),
    expect: invalidToken('claim'),
  },
  {
    name: 'roles claim holding a number makes the token invalid, also on a role route',
    catalogue: [61],
    variant: 'default',
    request: (t) => ({ path: '/roles/one', headers: bearer(t.rolesMixed) }),
    expect: invalidToken('claim'),
  },
  {
    name: 'anonymous request on a role route',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/roles/one' }),
    expect: BARE,
  },
  {
    name: 'metadata: insufficient_role challenge names the document',
    catalogue: [62],
    variant: 'metadata',
    request: (t) => ({ path: '/roles/all', headers: bearer(t.auditor) }),
    expect: INSUFFICIENT_ROLE,
  },

  // RFC 9728: challenges name the metadata document
  {
    name: 'metadata: bare challenge names the document',
    catalogue: [1],
    variant: 'metadata',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'metadata: invalid_token challenge names the document',
    catalogue: [],
    variant: 'metadata',
    request: (t) => ({ path: '/me', headers: bearer(t.expired) }),
    expect: invalidToken('expired'),
  },
  {
    name: 'metadata: insufficient_scope challenge names the document',
    catalogue: [44],
    variant: 'metadata',
    request: (t) => ({ path: '/scoped/all', headers: bearer(t.readOnly) }),
    expect: insufficient(SCOPES.pair.join(' ')),
  },
  {
    name: 'metadata: protected routes still work',
    catalogue: [],
    variant: 'metadata',
    request: (t) => ({ path: '/me', headers: bearer(t.full) }),
    expect: user(PAIR),
  },
];
