/**
 * `@gatehouse/issuer`: the reference OpenID Connect / OAuth 2.0 authorization server, built on
 * oidc-provider, with SQLite storage, a Management API guarded by `@gatehouse/core`, and a CLI
 * (`gatehouse-issuer start | migrate | seed | keys rotate`).
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
export { type BootstrapResult, bootstrap } from './bootstrap.js';
export {
  DEFAULTS,
  LOG_LEVELS,
  type LogLevel,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './config/defaults.js';
export {
  type AdminConfig,
  type HttpConfig,
  type IssuerConfig,
  type KeyConfig,
  type LogConfig,
  type PasswordConfig,
  type ResolvedConfig,
  resolveConfig,
  type TtlConfig,
} from './config/schema.js';
export {
  AccessDeniedError,
  type AnyManagementError,
  ConfigError,
  ConflictError,
  ManagementError,
  type ManagementErrorCode,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  StoreConflictError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ValidationIssue,
} from './errors.js';
export { GRANTS, type GrantContext, type GrantModule } from './grants/index.js';
export { generateSigningKey, type Jwk, type KeySet, type SigningKeyInfo } from './keys.js';
export { createLogger, REDACT_PATHS, REDACTED_FIELDS } from './logger.js';
export type { SeedDocument } from './management/schemas.js';
export { MANAGEMENT_SCOPES } from './management/scopes.js';
export { parseSeed, type SeedResult, seed } from './seed.js';
export { createIssuer, type Issuer } from './server.js';
export { createAdapter } from './storage/adapter.js';
export { openSqliteStore } from './storage/sqlite.js';
export type * from './storage/store.js';
export { APPLICATION_TYPES, ROLE_TYPES } from './storage/store.js';
