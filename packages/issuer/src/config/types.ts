/**
 * {@link IssuerSettings}, what users write (to `createIssuer()`, or through the CLI's config file,
 * environment and flags), and {@link ResolvedSettings}, what `resolveSettings()` makes of it. Both leave
 * the type of a ready storage driver (`store`) open: the package's `IssuerConfig` and `ResolvedConfig`
 * (issuer-config.ts) fill in `Store`, so config/ names nothing of storage/.
 *
 * @module
 */
import type { DestinationStream, Logger } from 'pino';
import type { ConsoleConfig, ResolvedConsoleConfig } from './console.js';
import type { AccessTokenFormat, CustomClaimsOnError, LogLevel, SigningAlgorithm } from './constants.js';
import type { DpopConfig, ResolvedDpopConfig } from './dpop.js';
import type { ProxyConfig, RateLimitConfig, ResolvedProtectionConfig, SignInConfig } from './protection.js';
import type { ResolvedShutdownConfig, ShutdownConfig } from './shutdown.js';
import type { ResolvedTelemetryConfig, TelemetryConfig } from './telemetry.js';
import type { ResolvedWebhookConfig, WebhookConfig } from './webhooks.js';

/**
 * Signing-key settings.
 *
 * @example
 * ```ts
 * const keys: KeyConfig = { algorithm: 'ES256', gracePeriod: 3_600 };
 * ```
 */
export interface KeyConfig {
  /** Algorithm of generated keys. Default `RS256`. */
  algorithm?: SigningAlgorithm;
  /** RSA modulus length in bits (2048–4096). Default 2048. */
  rsaModulusLength?: number;
  /** Seconds a rotated-out key stays published. Default 86400. */
  gracePeriod?: number;
  /** Seconds between checks for keys rotated by another process; 0 disables. Default 60. */
  reloadInterval?: number;
}

/**
 * PostgreSQL connection pool settings (used when `database` is a `postgres://` URL).
 *
 * @example
 * ```ts
 * const config: IssuerConfig = {
 *   baseUrl: 'https://auth.example.com',
 *   database: 'postgres://gatehouse:secret@db:5432/gatehouse',
 *   postgres: { poolSize: 20 },
 * };
 * ```
 */
export interface PostgresConfig {
  /** Most connections per issuer process. Default 10. */
  poolSize?: number;
  /** Milliseconds a query waits for a free connection. Default 10000. */
  connectionTimeout?: number;
  /** Milliseconds an unused connection stays open. Default 30000. */
  idleTimeout?: number;
}

/**
 * Lifetimes in seconds.
 *
 * @example
 * ```ts
 * const ttl: TtlConfig = { accessToken: 900, refreshToken: 86_400 };
 * ```
 */
export interface TtlConfig {
  /** Default 3600. */
  accessToken?: number;
  /** Default 60. */
  authorizationCode?: number;
  /** Default 3600. */
  idToken?: number;
  /** Default 1209600 (14 days). */
  refreshToken?: number;
  /** Default 1209600 (14 days). */
  session?: number;
  /** Default 1209600 (14 days). */
  grant?: number;
  /** Default 3600. */
  interaction?: number;
}

/**
 * Logging settings.
 *
 * @example
 * ```ts
 * const log: LogConfig = { level: 'warn' };
 * ```
 */
export interface LogConfig {
  /** pino level. Default `info`. */
  level?: LogLevel;
  /** Where JSON lines go. Default: standard output. */
  destination?: DestinationStream;
  /** A ready pino logger; `level` and `destination` are then ignored. Redaction still applies to child loggers. */
  logger?: Logger;
}

/**
 * Management API HTTP limits.
 *
 * @example
 * ```ts
 * const http: HttpConfig = { maxBodyBytes: 65_536 };
 * ```
 */
export interface HttpConfig {
  /** Largest request body in bytes (at most 1 MiB). Default 102400. */
  maxBodyBytes?: number;
  /** Deepest JSON nesting. Default 32. */
  maxJsonDepth?: number;
}

/**
 * Password policy.
 *
 * @example
 * ```ts
 * const passwords: PasswordConfig = { minLength: 12 };
 * ```
 */
export interface PasswordConfig {
  /** scrypt N, a power of two ≥ 1024. Default 16384. */
  scryptCost?: number;
  /** Shortest accepted password. Default 8. */
  minLength?: number;
}

/**
 * Subject tokens (`POST /api/subject-tokens`).
 *
 * @example
 * ```ts
 * const subjectTokens: SubjectTokenConfig = { ttl: 300 };
 * ```
 */
export interface SubjectTokenConfig {
  /** Lifetime in seconds (10–3600). Default 600. */
  ttl?: number;
}

/**
 * Token exchange (RFC 8693) limits.
 *
 * @example
 * ```ts
 * const tokenExchange: TokenExchangeConfig = { maxFailures: 5, failureWindow: 600 };
 * ```
 */
export interface TokenExchangeConfig {
  /** Failed redemptions of unknown tokens per client and address before 429. Default 10. */
  maxFailures?: number;
  /** Window of that count, in seconds. Default 300. */
  failureWindow?: number;
}

/**
 * The `getCustomJwtClaims` function: a module run in a worker thread for every JWT access token.
 *
 * @example
 * ```ts
 * const customJwtClaims: CustomJwtClaimsConfig = {
 *   module: './claims.mjs',
 *   environmentVariables: { TENANT: 'acme' },
 * };
 * ```
 */
export interface CustomJwtClaimsConfig {
  /** Path of an ES module exporting `getCustomJwtClaims` (relative paths resolve against the working directory). */
  module: string;
  /** Values handed to the function as `environmentVariables`; the worker's `process.env` is empty. Default `{}`. */
  environmentVariables?: Readonly<Record<string, string>>;
  /** Deadline per call in milliseconds (100–60000). Default 5000. */
  timeout?: number;
  /** Heap limit of a worker in MiB (16–4096). Default 128. */
  memoryLimit?: number;
  /** Largest serialized result in bytes (1024–1048576). Default 65536. */
  maxResultBytes?: number;
  /** `deny` (no token, an OAuth error) or `issue-without-claims`. Default `deny`. */
  onError?: CustomClaimsOnError;
  /** Worker threads (1–16). Default 2. */
  workers?: number;
}

/**
 * Administrator application created on first start.
 *
 * @example
 * ```ts
 * const admin: AdminConfig = { clientId: 'ci-admin', clientSecret: process.env.ADMIN_SECRET! };
 * ```
 */
export interface AdminConfig {
  /** Fixed client id instead of a generated one. */
  clientId?: string;
  /** Fixed client secret (at least 32 characters) instead of a generated one. */
  clientSecret?: string;
}

/**
 * Options of `createIssuer()` (as `IssuerConfig`, with `Driver` = `Store`). Only `baseUrl` is required.
 *
 * @example
 * ```ts
 * const config: IssuerSettings = { baseUrl: 'http://localhost:3001', dataDir: './.data' };
 * ```
 */
export interface IssuerSettings<Driver = unknown> {
  /** Public URL of the issuer, e.g. `http://localhost:3001`. The issuer identifier is `{baseUrl}/oidc`. */
  baseUrl: string;
  /** Port `listen()` binds by default. Default 3001. */
  port?: number;
  /** Interface `listen()` binds by default. Default `127.0.0.1`. */
  host?: string;
  /** Directory of the SQLite file. Default `./.data`. */
  dataDir?: string;
  /**
   * SQLite file path, `:memory:`, or a PostgreSQL URL (`postgres://user:password@host:5432/db`) for
   * several instances on one database. Default `{dataDir}/issuer.sqlite`.
   */
  database?: string;
  /** PostgreSQL pool settings. */
  postgres?: PostgresConfig;
  /** A ready storage driver; replaces `database`. */
  store?: Driver;
  /**
   * Replaced by `proxy`: only `false` is accepted. `true` is refused with a message naming
   * `proxy.hops`, since it trusted the left-most `X-Forwarded-For` entry, which clients write.
   */
  trustProxy?: boolean;
  /** Format of access tokens for API resources: `jwt` (default) or `opaque` (introspected, revocable at once). */
  accessTokenFormat?: AccessTokenFormat;
  /** Trusted proxies in front of the issuer (client addresses, `X-Forwarded-*`). Default: none. */
  proxy?: ProxyConfig;
  /** Sign-in throttling, lockout and bounded password hashing. */
  signIn?: SignInConfig;
  /** Management API and token endpoint rate limits. */
  rateLimits?: RateLimitConfig;
  log?: LogConfig;
  keys?: KeyConfig;
  ttl?: TtlConfig;
  http?: HttpConfig;
  passwords?: PasswordConfig;
  admin?: AdminConfig;
  subjectTokens?: SubjectTokenConfig;
  tokenExchange?: TokenExchangeConfig;
  /** Custom JWT access-token claims. Default: none. */
  customJwtClaims?: CustomJwtClaimsConfig;
  /** Keys signing the sign-in cookies (each ≥ 32 characters). Default: generated once and stored. */
  cookieKeys?: readonly string[];
  /** DPoP (RFC 9449) at the token endpoint: always on; whether proofs need a server nonce. */
  dpop?: DpopConfig;
  /** The admin console at `{baseUrl}/console`: on unless `{ enabled: false }`. */
  console?: ConsoleConfig;
  /** Webhook targets, disabling of failing endpoints, secret rotation overlap, per-endpoint concurrency. */
  webhooks?: WebhookConfig;
  /** Graceful shutdown: how long to keep serving once draining, and how long the whole stop may take. */
  shutdown?: ShutdownConfig;
  /** Metrics: OTLP export and the opt-in Prometheus `/metrics` endpoint (off by default). */
  telemetry?: TelemetryConfig;
}

/**
 * {@link IssuerSettings} after defaults and validation (as `ResolvedConfig`, with `Driver` = `Store`).
 *
 * @example
 * ```ts
 * const config: ResolvedSettings = resolveSettings({ baseUrl: 'http://localhost:3001' });
 * config.issuer; // 'http://localhost:3001/oidc'
 * ```
 */
export interface ResolvedSettings<Driver = unknown> {
  /** `baseUrl` without a trailing slash. */
  readonly baseUrl: string;
  /** Path part of `baseUrl` (`''` when it is the origin). */
  readonly basePath: string;
  /** `{baseUrl}/oidc`. */
  readonly issuer: string;
  /** `{baseUrl}/api`: the Management API's resource indicator. */
  readonly managementAudience: string;
  readonly port: number;
  readonly host: string;
  readonly database: string;
  readonly postgres: Readonly<Required<PostgresConfig>>;
  readonly store: Driver | undefined;
  /** Whether any proxy is trusted (`proxy.hops` > 0 or `proxy.addresses` set): `X-Forwarded-*` are read. */
  readonly trustProxy: boolean;
  readonly accessTokenFormat: AccessTokenFormat;
  readonly proxy: ResolvedProtectionConfig['proxy'];
  readonly signIn: ResolvedProtectionConfig['signIn'];
  readonly rateLimits: ResolvedProtectionConfig['rateLimits'];
  readonly log: Readonly<{
    level: LogLevel;
    destination: DestinationStream | undefined;
    logger: Logger | undefined;
  }>;
  readonly keys: Readonly<Required<KeyConfig>>;
  readonly ttl: Readonly<Required<TtlConfig>>;
  readonly http: Readonly<Required<HttpConfig>>;
  readonly passwords: Readonly<Required<PasswordConfig>>;
  readonly admin: Readonly<AdminConfig>;
  readonly subjectTokens: Readonly<Required<SubjectTokenConfig>>;
  readonly tokenExchange: Readonly<Required<TokenExchangeConfig>>;
  /** With `module` made absolute. */
  readonly customJwtClaims: Readonly<Required<CustomJwtClaimsConfig>> | undefined;
  readonly cookieKeys: readonly string[] | undefined;
  readonly dpop: ResolvedDpopConfig;
  readonly console: ResolvedConsoleConfig;
  readonly webhooks: ResolvedWebhookConfig;
  readonly shutdown: ResolvedShutdownConfig;
  readonly telemetry: ResolvedTelemetryConfig;
}
