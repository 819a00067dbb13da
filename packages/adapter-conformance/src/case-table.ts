/**
 * The shape of the conformance tables (cases.ts, request-cases.ts, dpop-cases.ts, step-up-cases.ts):
 * the variants of the app under test, the tokens minted once per run, a row and the answer every
 * adapter must give (an {@link Expectation}), and the helpers rows are written with.
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
/** 400 `invalid_request` for `reason`. */
export const invalidRequest = (reason: AuthErrorReason) =>
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
export const withRoles = (scopes: readonly string[], roles: readonly string[], actor: string | null = null) =>
  ok({ subject: SUBJECT, scopes, delegated: actor !== null, actor, bound: null, roles });
export const DELEGATION_REFUSED = {
  status: 403,
  error: 'access_denied',
  reason: 'delegation_not_allowed',
} as const;
/** 503 with `Retry-After`: keys cannot be had. */
export const UNAVAILABLE = { status: 503, unavailable: true } as const;

export const PAIR = [...SCOPES.pair];
