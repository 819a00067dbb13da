/**
 * The package's one frozen {@link DEFAULTS} object, and the constants option validation is built on.
 * `resolveOptions()` (options.ts) is the only place these are merged with user options.
 *
 * @module
 */
import type { Algorithm } from './types.js';

/** Every algorithm the verifier implements. HMAC and `none` are deliberately absent. */
export const SUPPORTED_ALGORITHMS: readonly Algorithm[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const);

/** Largest clock tolerance accepted, in seconds (RFC 7519 §4.1.4: "no more than a few minutes"). */
export const MAX_CLOCK_TOLERANCE = 300;

/** How the verifier treats DPoP (RFC 9449); see {@link DEFAULTS}.dpop.mode. */
export type DpopMode = 'allowed' | 'required' | 'disabled';

/**
 * Which tokens the verifier introspects (RFC 7662); see {@link DEFAULTS}.introspection.mode.
 * `opaque`: tokens that are not JWTs; `always`: every token; `delegated`: tokens that are not JWTs, and
 * JWTs carrying `act` (impersonation, delegation) after they pass the local checks — so an
 * impersonation ended at the issuer is refused at the next request while other JWTs never leave the
 * process.
 *
 * @example
 * ```ts
 * const mode: IntrospectionMode = 'always'; // every token, so a revocation applies at the next request
 * ```
 */
export type IntrospectionMode = 'opaque' | 'always' | 'delegated';

/** How the verifier treats certificate-bound tokens (RFC 8705); see {@link DEFAULTS}.mtls.mode. */
export type MtlsMode = 'allowed' | 'required';

/**
 * Default values of every option. Durations of the key cache are milliseconds (like jose); times
 * compared with JWT claims are seconds (like the claims themselves).
 */
export const DEFAULTS = Object.freeze({
  /** Accepted JWS algorithms: every supported asymmetric one. */
  algorithms: SUPPORTED_ALGORITHMS,
  /** Seconds of clock skew tolerated for `exp`, `nbf` and `maxTokenAge`. At most 300. */
  clockTolerance: 5,
  /** RFC 9068 profile off: issuers that send `typ: JWT` (or none) are accepted. */
  strict: false,
  /** Longest token accepted, in characters, checked before any decoding (8 KiB). */
  maxTokenLength: 8192,
  /** Realm sent in every `WWW-Authenticate` challenge. */
  realm: 'api',
  /** `http:` URLs are refused except for loopback hosts. */
  allowInsecureHttp: false,
  /** Where tokens may come from besides the `Authorization` header (RFC 6750 §2.2, §2.3). */
  tokenSources: Object.freeze({ query: false, body: false }),
  /** Remote JWKS cache. */
  jwks: Object.freeze({
    /** Keys are refreshed after this many ms (10 min). A removed key stops working after it. */
    cacheMaxAge: 600_000,
    /** Least time between two fetches caused by an unknown `kid` (30 s). */
    cooldown: 30_000,
    /** Abort a discovery or JWKS request after this many ms (5 s). */
    timeout: 5_000,
    /** Keep using known keys for this many ms past `cacheMaxAge` while refreshes fail (30 min). */
    staleIfError: 1_800_000,
    /** First wait after a failed fetch, doubled per failure (1 s). */
    backoffInitial: 1_000,
    /** Longest wait between failed fetches (30 s). */
    backoffMax: 30_000,
    /** Largest discovery or JWKS response body accepted, in bytes (256 KiB). */
    maxResponseBytes: 262_144,
    /** Most keys read from one JWKS; the rest are ignored. */
    maxKeys: 100,
    /**
     * Origins besides the issuer's own that a discovered `jwks_uri` may point at: none. A metadata
     * document naming keys elsewhere is refused, so a poisoned or forged document cannot silently
     * redirect key fetching (an explicit `jwksUri` is not concerned).
     */
    allowedOrigins: Object.freeze([]) as readonly string[],
  }),
  /** Sender-constrained tokens: DPoP (RFC 9449). */
  dpop: Object.freeze({
    /**
     * `allowed`: Bearer and DPoP tokens are both accepted, but a DPoP-bound token never as Bearer;
     * `required`: only DPoP-bound tokens with a valid proof; `disabled`: the `DPoP` scheme is unknown.
     */
    mode: 'allowed' as DpopMode,
    /** Algorithms accepted for proofs, advertised in challenges as `algs` (RFC 9449 §7.1). */
    algorithms: Object.freeze(['ES256', 'EdDSA', 'RS256', 'PS256'] as const) as readonly Algorithm[],
    /** Seconds after its `iat` during which a proof is accepted (Auth0 and oidc-provider use 300). */
    iatWindow: 300,
    /** Seconds a proof's `iat` may lie in the future (client clock ahead of ours). */
    iatLeeway: 30,
    /** Longest `DPoP` header accepted, in characters, checked before any decoding (8 KiB). */
    maxProofLength: 8192,
    /** Server nonces are off; `{ secret }` turns them on (RFC 9449 §9). */
    nonce: false as const,
    /** Seconds one nonce step lasts; a nonce is accepted during its own step and the next one. */
    nonceLifetime: 300,
    /** Identifiers held by the default in-memory replay store (see `MemoryReplayStore`). */
    replayStoreMax: 100_000,
  }),
  /** Certificate-bound tokens (RFC 8705). */
  mtls: Object.freeze({
    /**
     * `allowed`: a token with `cnf["x5t#S256"]` needs the matching client certificate, unbound tokens
     * pass; `required`: only certificate-bound tokens are accepted.
     */
    mode: 'allowed' as MtlsMode,
    /**
     * Where the client certificate comes from: `undefined` = the TLS connection; a header name (e.g.
     * `client-cert`, RFC 9440) only behind a TLS-terminating proxy that sets it and strips it from clients.
     */
    certificateHeader: undefined as string | undefined,
  }),
  /**
   * Milliseconds between two `onWarning` reports of the same cause (5 min): a misconfigured issuer is
   * reported at once, then at most this often, however many requests fail.
   */
  warningInterval: 300_000,
  /**
   * What `onWarning` says about tokens of a trusted issuer refused for their audience
   * (`AudienceMismatchError`). A token's `aud` is not chosen by the verifier, so what is named is bounded.
   */
  audienceWarnings: Object.freeze({
    /**
     * Most distinct causes (issuer and audiences named) reported per `warningInterval`: tokens naming
     * ever new audiences cannot flood the logs nor grow memory.
     */
    maxCauses: 10,
    /** Most audiences of a token named in one warning; the others are counted ("and 3 more"). */
    maxAudiences: 5,
    /** Longest audience named, in characters (a longer one is cut, "…"); non-printable characters become `?`. */
    maxLength: 200,
  }),
  /** Token introspection (RFC 7662), used only when the `introspection` option is given. */
  introspection: Object.freeze({
    /**
     * `opaque`: JWTs are verified locally, any other token is introspected; `always`: every token is;
     * `delegated`: as `opaque`, and a JWT with `act` is also introspected once verified locally.
     */
    mode: 'opaque' as IntrospectionMode,
    /**
     * Longest time an active answer is reused in `opaque` mode, in ms (30 s), never past the token's
     * `exp`: a token revoked at the issuer is refused at most this long after. `always` mode reuses no
     * answer unless `cacheMaxAge` is given (a revocation applies at the next request).
     */
    cacheMaxAge: 30_000,
    /** Abort an introspection request after this many ms (5 s). */
    timeout: 5_000,
    /** Largest introspection response accepted, in bytes (64 KiB). */
    maxResponseBytes: 65_536,
    /** `Retry-After` seconds of the 503 answered while the introspection endpoint is unavailable. */
    retryAfter: 5,
  }),
  /** Caches behind an `issuer` function (tenants): bounded, so random `iss` values cannot grow memory. */
  issuerCache: Object.freeze({
    /** Most key sets (trusted issuers) held; the least recently used is dropped first. */
    max: 100,
    /** Most answers of the function held (trusted or not). */
    answers: 1_000,
    /** Milliseconds an answer is reused before the function is asked again (10 min). */
    maxAge: 600_000,
    /** Milliseconds the function may take; after that the request is answered 503 (5 s). */
    timeout: 5_000,
  }),
  /** Cache of verified results, keyed on the exact token, per verifier. */
  cache: Object.freeze({
    /** Most cached results. */
    max: 1_000,
  }),
  /**
   * OpenTelemetry (telemetry/), on when `@opentelemetry/api` is installed: spans and metrics go to the
   * providers the application registered (a no-op until it registers an SDK).
   */
  telemetry: Object.freeze({
    /** The token's subject is personal data: it is recorded (as `enduser.id`) only when asked. */
    recordSubject: false,
    /** A `gatehouse.authenticate` span per call (`false`: metrics only, no span started). */
    spans: true,
  }),
});
