/**
 * The conformance table: requests and the answer every adapter must give, with the security-catalogue
 * cases (section A) each row covers (A61–A62: the `roles` claim and `requireRole`); the sender-constrained rows (section D) are in `dpop-cases.ts`.
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
import type { AuthErrorReason, OAuthErrorCode } from '@gatehouse/core';
import type { TestIssuer } from '@gatehouse/testing';
import { ROLES, SCOPES } from './app.js';
import type { TestRequest } from './client.js';

export const VARIANTS = ['default', 'sources', 'large', 'outage', 'metadata'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The resource indicator of the API under test (a path, so RFC 9728 §3.1 path insertion is exercised). */
export const AUDIENCE = 'https://api.gatehouse.test/orders';
/** Subject of the suite's tokens. */
export const SUBJECT = 'user-42';
/** Header and claim text that would split a header if it were ever copied into one (case 49). */
export const INJECTION = 'x"\r\nSet-Cookie: session=stolen; \\"';

/** Tokens minted once per run. */
export interface Tokens {
  /** `read:users write:users`. */
  readonly full: string;
  /** `read:users` only. */
  readonly readOnly: string;
  /** `read:usersX READ:users`: look-alikes of `read:users`. */
  readonly lookalike: string;
  /** `scope` as an array, then as a number: both grant nothing. */
  readonly scopeArray: string;
  readonly scopeNumber: string;
  /** Impersonation: `support-7` acting for the subject, with both scopes. */
  readonly delegated: string;
  readonly expired: string;
  readonly wrongAudience: string;
  readonly tampered: string;
  readonly algNone: string;
  readonly unknownKey: string;
  /** `iss` carrying {@link INJECTION}. */
  readonly injectedIssuer: string;
  /** A valid token whose `sub` and a custom claim carry {@link INJECTION}, without the scope routes need. */
  readonly injectedClaims: string;
  /** Validly signed, over the 8 KiB token limit but within Node's 16 KiB header limit. */
  readonly oversized: string;
  /** Validly signed, about 19 KB: the request's headers pass Node's 16 KiB limit. */
  readonly overHeaderLimit: string;
  /** Validly signed, about 100 KB. */
  readonly huge: string;
  /** `roles: ['admin']`, with `read:users`. */
  readonly admin: string;
  /** `roles: ['auditor']`, without any scope. */
  readonly auditor: string;
  /** `roles: ['auditor', 'admin']`, with `read:users`. */
  readonly bothRoles: string;
  /** `roles` holding look-alikes of `admin`: `Admin`, `admin2`, `admin auditor`. */
  readonly lookalikeRoles: string;
  /** `roles` as a string, then as an array holding a number: both make the token invalid. */
  readonly rolesString: string;
  readonly rolesMixed: string;
  /** Impersonation: `support-7` acting for the subject, who holds `admin`. */
  readonly delegatedAdmin: string;
}

/** Mint the {@link Tokens} from a test issuer. */
export async function mintTokens(issuer: TestIssuer): Promise<Tokens> {
  const sign = (claims: Record<string, unknown>) => issuer.sign({ sub: SUBJECT, ...claims });
  const pair = SCOPES.pair.join(' ');
  return {
    full: await sign({ scope: pair }),
    readOnly: await sign({ scope: SCOPES.one }),
    lookalike: await sign({ scope: `${SCOPES.one}X ${SCOPES.one.toUpperCase()}` }),
    scopeArray: await sign({ scope: [...SCOPES.pair] }),
    scopeNumber: await sign({ scope: 7 }),
    delegated: await issuer.impersonation('support-7', { sub: SUBJECT, scope: pair }),
    expired: await issuer.tokens.expired({ sub: SUBJECT }),
    wrongAudience: await issuer.tokens.wrongAudience({ sub: SUBJECT }),
    tampered: await issuer.tokens.tamperedSignature({ sub: SUBJECT }),
    algNone: await issuer.tokens.algNone({ sub: SUBJECT }),
    unknownKey: await issuer.tokens.unknownKey({ sub: SUBJECT }),
    injectedIssuer: await sign({ iss: INJECTION, scope: pair }),
    injectedClaims: await sign({ sub: INJECTION, note: INJECTION }),
    oversized: await sign({ scope: pair, pad: 'p'.repeat(9_000) }),
    overHeaderLimit: await sign({ scope: pair, pad: 'p'.repeat(14_000) }),
    huge: await sign({ scope: pair, pad: 'p'.repeat(75_000) }),
    admin: await sign({ scope: SCOPES.one, roles: [ROLES.one] }),
    auditor: await sign({ roles: ['auditor'] }),
    bothRoles: await sign({ scope: SCOPES.one, roles: ['auditor', 'admin'] }),
    lookalikeRoles: await sign({ scope: SCOPES.one, roles: ['Admin', 'admin2', 'admin auditor'] }),
    rolesString: await sign({ scope: SCOPES.one, roles: 'admin' }),
    rolesMixed: await sign({ scope: SCOPES.one, roles: ['admin', 7] }),
    delegatedAdmin: await issuer.impersonation('support-7', {
      sub: SUBJECT,
      scope: pair,
      roles: [ROLES.one],
    }),
  };
}

/** What every adapter must answer. */
export type Expectation =
  /** 200 with this JSON body (see `describeAuth`). */
  | { readonly status: 200; readonly body: Readonly<Record<string, unknown>> }
  /** 401 with a bare challenge (no `error`): no token was found. */
  | { readonly status: 401; readonly bare: true }
  /**
   * An RFC 6750 / RFC 9449 error: status, `error` code, the reason behind `error_description`, and
   * `scope` for 403 IS. `scheme: 'dpop'`: the request used the `DPoP` scheme, so the error is in the
   * `DPoP` challenge (proof errors, `invalid_dpop_proof`, and nonce errors, `use_dpop_nonce` with a
   * `DPoP-Nonce` header, always are).
   */
  | {
      readonly status: 400 | 401 | 403;
      readonly error: OAuthErrorCode;
      readonly reason: AuthErrorReason;
      readonly scope?: string;
      /** RFC 9470 `insufficient_user_authentication`: the challenge's `acr_values` and `max_age`. */
      readonly acrValues?: string;
      readonly maxAge?: string;
      readonly scheme?: 'dpop';
    }
  /** 503 with `Retry-After` and no challenge: keys cannot be had. */
  | { readonly status: 503; readonly unavailable: true }
  /** Node's own 431 before any adapter runs; the server must keep serving. */
  | { readonly status: 431 };

/**
 * A case of /work/shared/security-catalogue.md: a number is a section A case, `D<n>` a section D one
 * (sender-constrained tokens), `E<n>` a section E one (step-up).
 */
export type CatalogueCase = number | `D${number}` | `E${number}`;

/** One row of the table: a request for a variant's deployment, and what every adapter must answer. */
export interface Row<V extends string = Variant, T = Tokens> {
  readonly name: string;
  /** The catalogue cases the row covers; empty for a plain happy path. */
  readonly catalogue: readonly CatalogueCase[];
  readonly variant: V;
  /**
   * Sent first, and answered 200, so the row's own request finds its token in the verifier's result
   * cache (D19: a cache hit never skips the proof).
   */
  readonly warmUp?: (tokens: T) => TestRequest;
  readonly request: (tokens: T) => TestRequest;
  readonly expect: Expectation;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const ok = (body: Record<string, unknown>) => ({ status: 200, body }) as const;
/** 200 for the suite's subject; `bound` is how the token was bound (`dpop`, `mtls`), `null` for bearer. */
export const user = (scopes: readonly string[], actor: string | null = null, bound: string | null = null) =>
  ok({ subject: SUBJECT, scopes, delegated: actor !== null, actor, bound });
export const BARE = { status: 401, bare: true } as const;
export const invalidToken = (reason: AuthErrorReason) =>
  ({ status: 401, error: 'invalid_token', reason }) as const;
const invalidRequest = (reason: AuthErrorReason) =>
  ({ status: 400, error: 'invalid_request', reason }) as const;
export const insufficient = (scope: string) =>
  ({ status: 403, error: 'insufficient_scope', reason: 'insufficient_scope', scope }) as const;
/** 403 for a missing role: `insufficient_scope` without a `scope` attribute, reason `insufficient_role`. */
export const INSUFFICIENT_ROLE = {
  status: 403,
  error: 'insufficient_scope',
  reason: 'insufficient_role',
} as const;
/** 200 for the suite's subject holding `roles`. */
const withRoles = (scopes: readonly string[], roles: readonly string[], actor: string | null = null) =>
  ok({ subject: SUBJECT, scopes, delegated: actor !== null, actor, bound: null, roles });
export const DELEGATION_REFUSED = {
  status: 403,
  error: 'access_denied',
  reason: 'delegation_not_allowed',
} as const;
const UNAVAILABLE = { status: 503, unavailable: true } as const;

export const PAIR = [...SCOPES.pair];

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

  // 1. No Authorization header → bare 401, no fetch
  {
    name: 'no Authorization header',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'no Authorization header, keys unreachable: no fetch, so no 503',
    catalogue: [1],
    variant: 'outage',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'no Authorization header on a scoped route',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/scoped/all' }),
    expect: BARE,
  },

  // 2. Another scheme, or Bearer without a token → bare 401
  {
    name: 'Basic credentials',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
    expect: BARE,
  },
  {
    name: 'unknown scheme',
    catalogue: [2],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: { authorization: `Token ${t.full}` } }),
    expect: BARE,
  },
  {
    name: 'Bearer with an empty token',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Bearer' } }),
    expect: BARE,
  },
  {
    name: 'Bearer followed by spaces only',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Bearer    ' } }),
    expect: BARE,
  },

  // 3. The scheme is case-insensitive
  {
    name: 'lower-case bearer scheme',
    catalogue: [3],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: `bearer ${t.full}` } }),
    expect: user(PAIR),
  },
  {
    name: 'upper-case BEARER scheme',
    catalogue: [3],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: `BEARER ${t.full}` } }),
    expect: user(PAIR),
  },

  // 4. More than one token source → 400 invalid_request (whether or not the other source is enabled)
  {
    name: 'header and query token',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: `/me?access_token=${t.full}`, headers: bearer(t.full) }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and query token, query enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}`, headers: bearer(t.full) }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and form-body token',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: '/form', headers: bearer(t.full), form: { access_token: t.full } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and form-body token, body enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: '/form', headers: bearer(t.full), form: { access_token: t.full } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'two Authorization headers',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({
      path: '/me',
      headers: { authorization: [`Bearer ${t.full}`, `Bearer ${t.readOnly}`] },
    }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'two Authorization headers, the second one not Bearer',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: [`Bearer ${t.full}`, 'Basic dXNlcjpwYXNz'] } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'access_token twice in the query, query enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}&access_token=${t.full}` }),
    expect: invalidRequest('multiple_tokens'),
  },

  // 5. Query (and body) tokens only when enabled
  {
    name: 'query token ignored by default',
    catalogue: [5],
    variant: 'default',
    request: (t) => ({ path: `/me?access_token=${t.full}` }),
    expect: BARE,
  },
  {
    name: 'query token accepted when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}` }),
    expect: user(PAIR),
  },
  {
    name: 'form-body token ignored by default',
    catalogue: [5],
    variant: 'default',
    request: (t) => ({ path: '/form', form: { access_token: t.full } }),
    expect: BARE,
  },
  {
    name: 'form-body token accepted when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: '/form', form: { access_token: t.full } }),
    expect: user(PAIR),
  },
  {
    name: 'bad query token refused when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.expired}` }),
    expect: invalidToken('expired'),
  },

  {
    name: 'query token with broken percent-encoding, query enabled',
    catalogue: [5, 6],
    variant: 'sources',
    request: () => ({ path: '/me?access_token=%E0%A4%A' }),
    expect: invalidRequest('bad_syntax'),
  },
  {
    name: 'query with broken percent-encoding and no token, query enabled',
    catalogue: [5],
    variant: 'sources',
    request: () => ({ path: '/me?q=%E0%A4%A&x=%' }),
    expect: BARE,
  },
  // 7. Size limits
  {
    name: 'token over the 8 KiB limit in a header that fits',
    catalogue: [7],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.oversized) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: '100 KB token with a 256 KiB header limit',
    catalogue: [7],
    variant: 'large',
    request: (t) => ({ path: '/me', headers: bearer(t.huge) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: 'oversized token, keys unreachable: refused before any fetch',
    catalogue: [7],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: bearer(t.oversized) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: "headers over 16 KiB get Node's 431",
    catalogue: [7],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.overHeaderLimit) }),
    expect: { status: 431 },
  },

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
