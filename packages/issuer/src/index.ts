/**
 * `@gatehouse/issuer`: the reference OpenID Connect / OAuth 2.0 authorization server, built on
 * oidc-provider, with SQLite storage (or PostgreSQL, for several instances on one database), a
 * Management API guarded by `@gatehouse/core`, and a CLI
 * (`gatehouse-issuer start | migrate | seed | keys rotate | token | admin reset-secret`). RFC 8693 token exchange for
 * impersonation (subject tokens, actor tokens, personal access tokens) and a `getCustomJwtClaims` hook
 * run in worker threads.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * const issuer = await createIssuer({ baseUrl: 'http://localhost:3001', database: ':memory:' });
 * await issuer.listen();
 * ```
 *
 * @module
 */
export { type AdminSecret, type BootstrapResult, bootstrap, resetAdminSecret } from './bootstrap.js';
export { type ConsoleConfig, type ResolvedConsoleConfig, resolveConsoleConfig } from './config/console.js';
export {
  CUSTOM_CLAIMS_ON_ERROR,
  type CustomClaimsOnError,
  LOG_LEVELS,
  type LogLevel,
  MAX_ROLES_CLAIM,
  MAX_SUBJECT_TOKEN_TTL,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './config/constants.js';
export { DEFAULTS } from './config/defaults.js';
export { type DpopConfig, type ResolvedDpopConfig, resolveDpopConfig } from './config/dpop.js';
export type {
  ProxyConfig,
  RateLimitConfig,
  ResolvedProtectionConfig,
  ResolvedProxyConfig,
  SignInConfig,
} from './config/protection.js';
export type {
  AdminConfig,
  CustomJwtClaimsConfig,
  HttpConfig,
  KeyConfig,
  LogConfig,
  PasswordConfig,
  PostgresConfig,
  SubjectTokenConfig,
  TokenExchangeConfig,
  TtlConfig,
} from './config/schema.js';
export {
  type ResolvedShutdownConfig,
  resolveShutdownConfig,
  type ShutdownConfig,
} from './config/shutdown.js';
export {
  type ResolvedTelemetryConfig,
  resolveTelemetryConfig,
  type TelemetryConfig,
} from './config/telemetry.js';
export {
  type ResolvedWebhookConfig,
  resolveWebhookConfig,
  type WebhookConfig,
} from './config/webhooks.js';
export { CONSOLE_ROLES, consoleUris } from './console/bootstrap.js';
export type {
  CustomClaimsApi,
  CustomClaimsApplication,
  CustomClaimsContext,
  CustomClaimsGrant,
  CustomClaimsInput,
  CustomClaimsUser,
  GetCustomJwtClaims,
} from './customize/types.js';
export { RESERVED_CLAIMS } from './customize/types.js';
export {
  AccessDeniedError,
  type AnyManagementError,
  ConfigError,
  ConflictError,
  CopyError,
  type CopyErrorReason,
  CustomClaimsError,
  type CustomClaimsFailure,
  DatabaseConnectionError,
  type DatabaseConnectionReason,
  DatabaseFileError,
  ListenError,
  ManagementError,
  type ManagementErrorCode,
  MethodNotAllowedError,
  NoAdministratorError,
  NotFoundError,
  PayloadTooLargeError,
  PrivilegeError,
  type PrivilegeReason,
  RateLimitedError,
  StoreConflictError,
  TokenExchangeError,
  type TokenExchangeFailureReason,
  TokenRateLimitedError,
  TooManyExchangeFailuresError,
  TooManyRolesError,
  UnsupportedMediaTypeError,
  UserSuspendedError,
  ValidationError,
  type ValidationIssue,
} from './errors.js';
export { GRANTS, type GrantContext, type GrantModule } from './grants/index.js';
export { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES, tokenExchangeGrant } from './grants/token-exchange.js';
export type { Readiness, ReadinessChecks } from './health.js';
export { type IssuerConfig, type ResolvedConfig, resolveConfig } from './issuer-config.js';
export { generateSigningKey, type Jwk, type KeySet, type SigningKeyInfo } from './keys.js';
export { createLogger, REDACT_PATHS, REDACTED_FIELDS } from './logger.js';
export { MANAGEMENT_SCOPES } from './management/scopes.js';
export { clientAddress } from './protection/client-address.js';
export { parseSeed, type SeedDocument, type SeedResult, seed } from './seed.js';
export { createIssuer, type Issuer } from './server.js';
export type { ShutdownResult } from './shutdown.js';
export { createAdapter } from './storage/adapter.js';
export {
  COPIED_TABLES,
  type CopyOptions,
  type CopyReport,
  copyStore,
} from './storage/copy.js';
export { openPostgresStore, type PostgresStoreOptions } from './storage/drivers/postgres.js';
export { openSqliteStore, type SqliteStoreOptions } from './storage/drivers/sqlite.js';
export type { DatabaseFileWarning } from './storage/drivers/sqlite-files.js';
export { describeDatabase, type OpenStoreOptions, openStore } from './storage/open.js';
export type * from './storage/store.js';
export {
  APPLICATION_TYPES,
  AUDIT_EVENT_TYPES,
  MANAGEMENT_EVENT_TYPES,
  ROLE_TYPES,
  WEBHOOK_EVENT_TYPES,
} from './storage/store.js';
export type * from './storage/tables/audit-events.js';
export type * from './storage/tables/entities.js';
export type * from './storage/tables/failure-counters.js';
export type * from './storage/tables/payloads.js';
export type * from './storage/tables/settings.js';
export type * from './storage/tables/signing-keys.js';
export type * from './storage/tables/token-requests.js';
export type * from './storage/tables/tokens.js';
export type * from './storage/tables/totp-factors.js';
export type * from './storage/tables/webhooks.js';
export { ISSUER_TELEMETRY_NAMES, type MetricName } from './telemetry/names.js';
export { TRACING_NAMES } from './tracing/names.js';
export { emit, type WebhookEmission } from './webhooks/emit.js';
export {
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEvent,
  WebhookSignatureError,
  type WebhookSignatureReason,
} from './webhooks/signature.js';
