/**
 * The one frozen {@link DEFAULTS} object of `@gatehouse/issuer`. Every default the issuer applies is here,
 * with its unit and the reason for the value; `resolveSettings()` in `schema.ts` is the only place that
 * merges it with user configuration.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type {
  AccessTokenFormat,
  CustomClaimsOnError,
  LogLevel,
  PrometheusMode,
  SigningAlgorithm,
} from './constants.js';

/**
 * Default value of every setting.
 *
 * @example
 * ```ts
 * import { DEFAULTS } from '@gatehouse/issuer';
 * console.log(DEFAULTS.port); // 3001
 * ```
 */
export const DEFAULTS = Object.freeze({
  /** TCP port `listen()` binds when none is given. */
  port: 3001,
  /** Interface `listen()` binds: loopback only, so a development issuer is not exposed by accident. */
  host: '127.0.0.1',
  /** Directory holding the SQLite file (ignored by git). */
  dataDir: './.data',
  /** SQLite file name inside `dataDir` (when `database` is not set; a `postgres://` URL selects PostgreSQL). */
  databaseFile: 'issuer.sqlite',
  /** Replaced by `proxy`: only `false` is accepted (`true` trusted the left-most `X-Forwarded-For` entry). */
  trustProxy: false,
  /**
   * Access tokens for API resources are RFC 9068 JWTs, which APIs validate without calling the issuer
   * (and which oidc-provider can neither introspect nor revoke). `opaque` tokens must be introspected
   * (RFC 7662) but are revoked at once (RFC 7009). The Management API's own tokens are always JWTs.
   */
  accessTokenFormat: 'jwt' as AccessTokenFormat,
  proxy: Object.freeze({
    /**
     * Trusted proxies in front of the issuer. 0: the client address is the TCP peer and
     * `X-Forwarded-*` headers are ignored; N: the N-th `X-Forwarded-For` entry from the right end.
     */
    hops: 0,
    /** Addresses or CIDR ranges of trusted proxies (skipped from the right end of `X-Forwarded-For`). */
    addresses: Object.freeze([] as string[]),
  }),
  log: Object.freeze({
    /** pino level. */
    level: 'info' as LogLevel,
  }),
  keys: Object.freeze({
    /** Algorithm of generated signing keys. RS256 is mandatory-to-implement for OpenID Connect ID tokens. */
    algorithm: 'RS256' as SigningAlgorithm,
    /** RSA modulus length in bits for RS256/PS256 keys. */
    rsaModulusLength: 2048,
    /**
     * Seconds a rotated-out key stays in the JWKS (24 h): longer than the longest default access-token
     * lifetime (1 h) plus a resource server's JWKS cache age (10 min in @gatehouse/core).
     */
    gracePeriod: 86_400,
    /** Seconds between checks for keys rotated by another process (e.g. `gatehouse-issuer keys rotate`). 0 disables. */
    reloadInterval: 60,
  }),
  /** Lifetimes in seconds. */
  ttl: Object.freeze({
    /** Default `accessTokenTtl` of new API resources, and the lifetime of userinfo (opaque) access tokens. */
    accessToken: 3_600,
    /** Authorization codes: 60 s, short because they are redeemed immediately (catalogue B35). */
    authorizationCode: 60,
    /** ID tokens. */
    idToken: 3_600,
    /** Refresh tokens (14 days); rotated on every use. */
    refreshToken: 1_209_600,
    /** Sign-in sessions (14 days). */
    session: 1_209_600,
    /** Grants (14 days). */
    grant: 1_209_600,
    /** An unfinished sign-in interaction (1 h). */
    interaction: 3_600,
  }),
  http: Object.freeze({
    /** Largest Management API request body in bytes (100 KiB; bodies are small JSON documents, 1 MB gets 413). */
    maxBodyBytes: 102_400,
    /** Deepest JSON nesting accepted in a Management API body; checked before parsing. */
    maxJsonDepth: 32,
  }),
  passwords: Object.freeze({
    /** scrypt cost parameter N (2^14: about 16 MiB and tens of milliseconds per hash). */
    scryptCost: 16_384,
    /** Shortest password accepted by the Management API. */
    minLength: 8,
  }),
  signIn: Object.freeze({
    /**
     * Failed sign-ins of one account from one client address within `failureWindow` before that
     * address is locked out of that account for `lockDuration` (catalogue F12). The account itself is
     * never locked: the right password from another address still signs in. 10 lets a user who mistypes
     * a few times through, and holds one address to 10 guesses per account per `lockDuration`.
     */
    maxFailuresPerAccountAndAddress: 10,
    /**
     * Failed sign-ins from one client address (to any account) before that address is locked: higher
     * than `maxFailuresPerAccountAndAddress`, since many users may share an address (an office behind
     * NAT); it bounds password spraying (a few guesses at each of many accounts) from one address.
     */
    maxFailuresPerAddress: 100,
    /** Seconds over which failures are counted (15 min). */
    failureWindow: 900,
    /** Seconds a lock lasts (15 min); the locked address is refused the right password meanwhile. */
    lockDuration: 900,
    /**
     * Failures of an account (from any address) answered at full speed; each further attempt at it
     * waits `delay`, doubling up to `maxDelay`. The only per-account measure: a slow-down that every
     * address sees, never a refusal.
     */
    delayAfter: 3,
    /** Failures from an address answered at full speed before its delays start. */
    delayAfterPerAddress: 30,
    /** First delay in milliseconds; doubles with each further failure, up to `maxDelay`. */
    delay: 250,
    /**
     * Longest delay in milliseconds (4 s): the most the per-account slow-down ever adds to a sign-in,
     * the right password's from a fresh address included.
     */
    maxDelay: 4_000,
    /**
     * Sign-in password hashes computed at once, each on its own worker thread at the lowest CPU
     * priority: half the CPUs, at least one, so a login flood leaves CPU and libuv's pool (token
     * signing) to everything else.
     */
    concurrentHashes: Math.max(1, Math.floor(availableParallelism() / 2)),
    /**
     * Sign-ins waiting for a hash slot; more are refused at once with `503` and `Retry-After: 1`. A
     * waiting attempt costs no CPU, while a refused one is answered and retried at full speed: the
     * queue absorbs a flood's attempts, and only the excess beyond it is refused.
     */
    queuedHashes: 64,
  }),
  rateLimits: Object.freeze({
    /** Length of every rate-limit window in seconds. */
    window: 60,
    /** Management API requests per client per window (20 per second on average). */
    managementPerClient: 1_200,
    /** Token endpoint requests per client id per window (10 per second; a client caches its tokens). */
    tokenPerClient: 600,
    /** Token endpoint requests per client address per window (several clients may share a host). */
    tokenPerAddress: 1_200,
    /**
     * Milliseconds between an instance's flushes of its counts to the database (requests are decided in
     * memory, never waiting for it). Across instances a limit can be exceeded by at most what the other
     * instances counted during one interval.
     */
    syncInterval: 1_000,
  }),
  /** How each instance keeps its rate-limit counts in memory (fixed; see protection/rate-limiter.ts). */
  rateLimitTracking: Object.freeze({
    /** Keys (client ids, addresses) an instance tracks at once; the least recently used are flushed and forgotten. */
    maxKeys: 50_000,
    /** Keys sent in one flush statement (within SQLite's and PostgreSQL's parameter limits). */
    keysPerStatement: 5_000,
  }),
  subjectTokens: Object.freeze({
    /** Lifetime of a subject token in seconds (10 min): long enough to hand over, short enough to be useless later. At most 3600. */
    ttl: 600,
    /** Largest `context` document, serialized, in bytes. */
    maxContextBytes: 4_096,
    /**
     * Seconds an expired subject token is kept before the purge removes it (24 h), so a late replay is
     * still explained (`expired`, not `unknown`).
     */
    retention: 86_400,
  }),
  tokenExchange: Object.freeze({
    /**
     * Failed redemptions of unknown subject tokens or PATs tolerated per client and address within
     * `failureWindow`; further exchanges get 429 until the window ends (catalogue B6).
     */
    maxFailures: 10,
    /** Length of the failure-counting window, in seconds (5 min). */
    failureWindow: 300,
  }),
  impersonation: Object.freeze({
    /**
     * Lifetime in seconds of an access token a subject token is exchanged for (5 min), unless its
     * application sets `impersonationTokenTtl`; never longer than the resource's `accessTokenTtl`.
     * Ending an impersonation reaches APIs that introspect at once, and APIs that only verify the JWT
     * when it expires: this bounds that wait.
     */
    tokenTtl: 300,
    /** Shortest `impersonationTokenTtl` an application may set (30 s). */
    minTokenTtl: 30,
    /** Longest `impersonationTokenTtl` an application may set (1 h). */
    maxTokenTtl: 3_600,
  }),
  customJwtClaims: Object.freeze({
    /** Deadline of one call in milliseconds (5 s); the worker is killed when it passes. */
    timeout: 5_000,
    /** Heap limit of a claims worker in MiB (128). */
    memoryLimit: 128,
    /** Largest result, serialized, in bytes (64 KiB). */
    maxResultBytes: 65_536,
    /** Fail closed: a broken function means no token. */
    onError: 'deny' as CustomClaimsOnError,
    /** Worker threads running the function concurrently (each call gets one worker to itself). */
    workers: 2,
  }),
  postgres: Object.freeze({
    /**
     * Most connections one issuer process opens (pg `Pool` `max`). N instances open up to N × this,
     * plus one each for key-change notifications: keep it under the server's `max_connections`.
     */
    poolSize: 10,
    /** Milliseconds a query waits for a free connection before it fails (10 s). */
    connectionTimeout: 10_000,
    /** Milliseconds an unused pooled connection stays open (30 s). */
    idleTimeout: 30_000,
  }),
  /**
   * Fixed limits of the kept token-request reads (not settings): the application, resource and
   * granted scopes of client-credentials requests, and the application and resource of other token
   * requests (`storage/sql/token-request-cache.ts`).
   */
  tokenRequestCache: Object.freeze({
    /** Reads each instance keeps in memory. */
    maxEntries: 1_000,
    /**
     * Longest time in milliseconds a kept read is used, even with no change seen (a safety net: any
     * change to the configuration drops it at once, on PostgreSQL as soon as its notification arrives).
     */
    maxAge: 60_000,
    /**
     * SQLite: how often, at most, in milliseconds, an instance asks whether another process wrote to
     * the database file (a CLI command); such a change is seen within this time. Its own writes are
     * seen at once; PostgreSQL instances hear each other's as notifications.
     */
    otherProcessCheckInterval: 100,
  }),
  /** Fixed limits of the PostgreSQL driver (not settings). */
  postgresDriver: Object.freeze({
    /** Distinct SQL texts prepared (named) per connection; further ones run unnamed. The store builds a bounded set of shapes, so this is never reached in practice. */
    maxPreparedStatements: 500,
    /** Longest wait in milliseconds between attempts to re-open the notification listener (key and configuration changes; 30 s; doubles from 1 s). */
    maxReconnectDelay: 30_000,
  }),
  copy: Object.freeze({
    /**
     * Most bound values in one INSERT of `gatehouse-issuer copy` (PostgreSQL allows 65,535; 2,000 keeps
     * each statement short while copying hundreds of rows per round trip).
     */
    maxValuesPerInsert: 2_000,
  }),
  maintenance: Object.freeze({
    /**
     * Milliseconds between purges of expired rows (10 min): oidc-provider payloads, subject tokens past
     * `subjectTokens.retention`, and failure counters. Expired rows are ignored when read, so this only
     * bounds the size of the tables.
     */
    purgeInterval: 600_000,
  }),
  interactions: Object.freeze({
    /** Largest sign-in or consent form body in bytes (8 KiB: a user name, a password and a CSRF token). */
    maxFormBytes: 8_192,
  }),
  /** The TOTP factor (RFC 6238) of the `urn:gatehouse:acr:mfa` sign-in level (see interactions/totp.ts). */
  totp: Object.freeze({
    /** Seconds per code (RFC 6238's default, what authenticator apps use). */
    period: 30,
    digits: 6,
    algorithm: 'SHA1',
    /** Steps accepted either side of now, for clock drift. */
    window: 1,
    /** Random bytes of a new secret (160 bits, RFC 4226 §4's recommendation). */
    secretBytes: 20,
    /** Seconds the signed password step stays valid on the code page. */
    stepLifetime: 300,
    /** Wrong codes allowed per user in `failureWindow`. */
    maxFailures: 5,
    /** Seconds of the failure window. */
    failureWindow: 900,
  }),
  cli: Object.freeze({
    /** Milliseconds `gatehouse-issuer token` waits for the issuer's answer (10 s). */
    tokenTimeout: 10_000,
  }),
  startup: Object.freeze({
    /**
     * Seconds a client is asked to wait (`Retry-After` of `503 {"status":"starting"}`) when it reaches
     * the port `gatehouse-issuer start` bound before the issuer is ready (about a second).
     */
    retryAfter: 1,
  }),
  /** OpenTelemetry metrics of the issuer (`telemetry` settings; docs/observability.md, "Issuer"). */
  telemetry: Object.freeze({
    /** Record metrics at all: on, since they cost next to nothing until a reader or exporter collects them. */
    metrics: true,
    /**
     * Export traces over OTLP when an OTLP endpoint is configured (the trace SDK is registered only
     * then, and only when the application registered no tracer provider of its own).
     */
    traces: true,
    /**
     * Seconds between two exports to the OTLP collector (60 s, OpenTelemetry's own default for
     * `OTEL_METRIC_EXPORT_INTERVAL`).
     */
    exportInterval: 60,
    /** `service.name` of the issuer's metrics, unless `OTEL_SERVICE_NAME` says otherwise. */
    serviceName: 'gatehouse-issuer',
    /**
     * The Prometheus `/metrics` endpoint: `off` (never public by default), `own-port` (a server of its
     * own on `prometheusHost:prometheusPort`) or `issuer-port` (at `{baseUrl}/metrics`, only with a token).
     */
    prometheus: 'off' as PrometheusMode,
    /** Port of the own `/metrics` server: 9464, the Prometheus exporter's registered default. */
    prometheusPort: 9464,
    /** Interface of the own `/metrics` server: loopback, so nothing is exposed without a decision. */
    prometheusHost: '127.0.0.1' as string,
    /**
     * Most client ids counted apart in `gatehouse.issuer.tokens.issued` and `token.errors`; the rest are
     * counted as `_OTHER`, so a deployment with many clients cannot grow a metric without bound.
     */
    maxClientIds: 1_000,
    /** Most distinct reasons (exchanges, sign-in failures) counted apart; the rest count as `_OTHER`. */
    maxReasons: 100,
  }),
  /** Graceful shutdown (`issuer.shutdown()`; the CLI runs it on SIGTERM and SIGINT). */
  shutdown: Object.freeze({
    /**
     * Seconds the instance keeps serving after `/health/ready` turned `503`, before it stops accepting
     * connections. 0: without a balancer (development, one process under a supervisor) waiting only
     * delays the stop, and behind one the right value is the balancer's own detection time (check
     * interval × failures), which no default can know: Kubernetes and load-balancer users set it.
     */
    drainDelay: 0,
    /**
     * Seconds the whole shutdown may take, `drainDelay` included (25 s): under Kubernetes' default
     * `terminationGracePeriodSeconds` of 30, so the issuer cuts what remains and says so in its log
     * before the kubelet's SIGKILL would.
     */
    drainTimeout: 25,
    /**
     * Milliseconds closing what remains may take once `drainTimeout` has passed (cut connections, hand
     * webhook deliveries back, close the database) before the CLI exits anyway (not a setting).
     */
    closeTimeout: 2_000,
  }),
  /** The readiness check of `/health/ready` (fixed; see health.ts). */
  health: Object.freeze({
    /**
     * Milliseconds the database check (one indexed read of `schema_migrations`) may take before the
     * instance counts as not ready (1 s): far above a healthy round trip, and within the 1 s default
     * `timeoutSeconds` of a Kubernetes probe once the answer is cached.
     */
    databaseTimeout: 1_000,
    /**
     * Milliseconds a database check's result is reused (1 s): probes every second from several
     * balancers cost at most one query per second per instance, and only one runs at a time.
     */
    cacheFor: 1_000,
  }),
  dpop: Object.freeze({
    /**
     * Whether every DPoP proof at the token endpoint must carry a server nonce (RFC 9449 §8). Off: a
     * proof's `iat` must be within 5 minutes and its `jti` is remembered for that long. On: the first
     * request of a client gets `400 use_dpop_nonce` with a `DPoP-Nonce` header, and it retries once.
     */
    requireNonce: false,
    /**
     * Proof algorithms the token endpoint accepts (`dpop_signing_alg_values_supported`): ES256 (what
     * `@gatehouse/client` and most clients use), Ed25519/EdDSA, and RSA-PSS/RSA for older clients.
     */
    signingAlgorithms: Object.freeze(['ES256', 'Ed25519', 'EdDSA', 'PS256', 'RS256'] as const),
    /**
     * Setting (in the store's `settings`) holding the nonce secret: 32 random bytes generated on the
     * first start and shared by every instance on the database, so a nonce from one is good at another.
     */
    nonceSecretSetting: 'dpop.nonce_secret',
  }),
  console: Object.freeze({
    /** Serve the admin console at `{baseUrl}/console` (and accept its signed-in administrators at the Management API). */
    enabled: true,
    /** Client id of the console's public (PKCE, no secret) `SPA` application, registered at bootstrap. */
    clientId: 'gatehouse-console',
    /** Seconds browsers may cache the console's content-hashed assets (1 year): a new build has new names. */
    assetMaxAge: 31_536_000,
    /**
     * Seconds after a console user's sign-in during which the dangerous changes are accepted from them
     * (key rotation, granting Management API scopes, webhooks, deleting users or applications); past
     * it they sign in again (RFC 9470 `max_age` step-up).
     */
    reauthenticateAfter: 300,
  }),
  management: Object.freeze({
    /** Default page size of list endpoints. */
    pageSize: 20,
    /** Largest page size a client may ask for. */
    maxPageSize: 100,
    /** Longest path parameter (an id) in characters; a longer one is `404` without touching the store. */
    maxParamLength: 200,
    /** Largest `customData` document of a user or application, serialized, in bytes. */
    maxCustomDataBytes: 4_096,
  }),
  webhooks: Object.freeze({
    /** Milliseconds one delivery attempt may take (connect, send, answer) before it counts as failed (10 s). */
    timeout: 10_000,
    /** Attempts per delivery before it is given up (`failed`): the first and 15 retries, over about 4 hours. */
    maxAttempts: 16,
    /** Milliseconds before the first retry; each further retry waits twice as long as the one before. */
    retryDelay: 1_000,
    /** Longest wait between two attempts, in milliseconds (1 hour). */
    maxRetryDelay: 3_600_000,
    /** Milliseconds between two looks at the queue by each issuer process. */
    pollInterval: 500,
    /** Most deliveries one process claims per statement (it claims again at once while more are due). */
    batchSize: 10,
    /**
     * Deliveries to one endpoint in flight at once, across every instance on the database: an endpoint
     * that never answers holds this many connections, and every other endpoint's deliveries go on.
     */
    concurrency: 4,
    /**
     * Deliveries one process has in flight at once, to all endpoints together (a bound on its open
     * connections); far above what healthy endpoints need, so slow ones do not use it up.
     */
    maxConcurrent: 256,
    /**
     * Seconds an endpoint may keep failing (no delivery succeeding since its first failure) before it is
     * disabled (3 days, as long as the retries of one delivery and then some); an audit event
     * `webhook.disabled` reports it.
     */
    disableAfter: 259_200,
    /** Seconds the previous signing secret stays valid after a rotation (24 h), unless the request says otherwise. */
    secretOverlap: 86_400,
    /** Longest overlap a rotation may ask for, in seconds (7 days). */
    maxSecretOverlap: 604_800,
    /**
     * Hosts, addresses or CIDR ranges that webhooks may target although they are loopback or private
     * (cloud metadata addresses never): none.
     */
    allowedPrivateTargets: Object.freeze([] as string[]),
    /** Largest response head read from a receiver, in bytes; the body is never read. */
    maxResponseHeaderBytes: 8_192,
    /**
     * Milliseconds a claim outlives the attempt's `timeout` (30 s): the process that claimed a delivery
     * settles it long before another one may take it over (only when the first died mid-attempt).
     */
    claimMargin: 30_000,
    /** Seconds a signature's timestamp may differ from the receiver's clock (5 min), for `verifyWebhookSignature`. */
    tolerance: 300,
    /** Seconds delivered and failed deliveries stay listed before the maintenance purge deletes them (30 days). */
    retention: 2_592_000,
    /** Longest `lastError` recorded for a failed attempt, in characters. */
    maxErrorLength: 200,
    /**
     * Setting (in the store's `settings`) holding the key that seals every endpoint's signing secret
     * (32 random bytes generated on first use, shared by every instance on the database).
     */
    secretKeySetting: 'webhooks.secret_key',
  }),
  responses: Object.freeze({
    /**
     * `Cache-Control: public, max-age` of the discovery document, in seconds (5 min). It changes only
     * when the issuer is reconfigured, and every URL in it is built from `baseUrl` (never from a
     * request header), so any cache in front may share it.
     */
    discoveryMaxAge: 300,
    /**
     * `Cache-Control: public, max-age` of the JWKS, in seconds (1 min). A rotated key signs at once, so
     * a cached JWKS without it fails verifiers that refetch on an unknown `kid`: one minute bounds that,
     * while a flood of JWKS requests is still absorbed by caches in front.
     */
    jwksMaxAge: 60,
    /**
     * Most characters of a client's own input echoed in an error answer (the `scope` member of
     * `invalid_scope`); longer lists are cut at a whole scope and end with `…`.
     */
    maxEcho: 256,
    /** Longest `error_description` sent (in JSON answers and error pages); longer ones end with `…`. */
    maxErrorDescription: 512,
  }),
});
