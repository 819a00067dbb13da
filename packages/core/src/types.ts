/**
 * Public types shared by the verifier, the adapters and user code.
 *
 * @module
 */

/** JWS algorithms the verifier can accept. All asymmetric: `none` and HMAC are never supported. */
export type Algorithm =
  | 'RS256'
  | 'RS384'
  | 'RS512'
  | 'PS256'
  | 'PS384'
  | 'PS512'
  | 'ES256'
  | 'ES384'
  | 'ES512'
  | 'EdDSA'
  | 'Ed25519';

/** One link of an RFC 8693 `act` chain: who acted, and (nested) on whose behalf that actor acted. */
export interface Actor {
  /** Subject identifier of the acting party. */
  readonly sub: string;
  /** Issuer of the actor's identity, when the `act` object names one. */
  readonly iss?: string;
  /** Client the actor used, when the `act` object names one. */
  readonly client_id?: string;
  /** The prior actor in a delegation chain. */
  readonly act?: Actor;
}

/** Claims of an RFC 9068 JWT access token. Unknown claims are kept as `unknown`. */
export interface AccessTokenClaims {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string | readonly string[];
  readonly exp?: number;
  readonly nbf?: number;
  readonly iat?: number;
  readonly jti?: string;
  readonly client_id?: string;
  readonly scope?: string;
  readonly scp?: readonly string[];
  readonly act?: Actor;
  readonly roles?: readonly string[];
  readonly [claim: string]: unknown;
}

/**
 * How a token is bound to its sender (RFC 7800 `cnf`): the thumbprint of a DPoP key (RFC 9449 §6.1) or
 * of a client certificate (RFC 8705 §3.1). The verifier has checked the binding for the request.
 */
export interface Confirmation {
  /** RFC 7638 SHA-256 thumbprint of the DPoP public key. */
  readonly jkt?: string;
  /** SHA-256 thumbprint of the client certificate. */
  readonly 'x5t#S256'?: string;
}

/** The result of a successful verification. Immutable; may be shared between requests by the result cache. */
export interface AuthInfo {
  /** The raw access token. Never log it: use {@link toAuditRecord} for logs. */
  readonly token: string;
  /** All verified claims. */
  readonly claims: AccessTokenClaims;
  /** `sub`, when present. */
  readonly subject: string | undefined;
  /** `client_id` (RFC 9068), or `azp` when only that is present. */
  readonly clientId: string | undefined;
  /** `iss`. */
  readonly issuer: string;
  /** `aud`, always as an array. */
  readonly audience: readonly string[];
  /** Granted scopes, from the `scope` string or the `scp` array. */
  readonly scopes: readonly string[];
  /**
   * Roles, from a `roles` claim (an array of role names; the Gatehouse issuer adds it for resources
   * that opt in). `[]` when the token has none; a `roles` claim of any other shape makes the token invalid.
   */
  readonly roles: readonly string[];
  /** When the token expires. */
  readonly expiresAt: Date;
  /** The RFC 8693 actor chain: set when someone acts on behalf of {@link AuthInfo.subject}. */
  readonly actor: Actor | undefined;
  /** `true` when the token was issued under delegation or impersonation (`act` present). */
  readonly delegated: boolean;
  /** The sender binding (`cnf`) the request proved, or `undefined` for a bearer token. */
  readonly confirmation: Confirmation | undefined;
  /** Whether every given scope was granted. */
  hasScope(...scopes: string[]): boolean;
  /** Whether at least one of the given scopes was granted. */
  hasAnyScope(...scopes: string[]): boolean;
  /** Whether every given role is held (whole, case-sensitive names). */
  hasRole(...roles: string[]): boolean;
  /** Whether at least one of the given roles is held. */
  hasAnyRole(...roles: string[]): boolean;
}

/** Minimal view of an HTTP request, built by each adapter. */
export interface RequestLike {
  /** Header map with lower-case names, as Node, Express, Fastify and Koa provide. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Node's `rawHeaders`, so duplicate `Authorization` headers can be detected (Node keeps only the first). */
  readonly rawHeaders?: readonly string[] | undefined;
  /** HTTP method (the form-body token source is refused for GET). */
  readonly method?: string | undefined;
  /** Parsed query string. */
  readonly query?: Readonly<Record<string, unknown>> | URLSearchParams | undefined;
  /** Parsed request body (only read for `application/x-www-form-urlencoded`). */
  readonly body?: unknown;
  /**
   * The absolute URI the client addressed (scheme, host, port, path; a query is ignored): DPoP proofs'
   * `htu` is compared with it. Adapters build it from their `origin` option, or from the framework's
   * trust-proxy setting; never from an untrusted `X-Forwarded-*` header.
   */
  readonly url?: string | undefined;
  /** The client's TLS certificate (DER), for certificate-bound tokens (RFC 8705). */
  readonly clientCertificate?: Uint8Array | undefined;
}
