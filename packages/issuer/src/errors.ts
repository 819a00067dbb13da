/**
 * Errors of `@gatehouse/issuer`: configuration errors (thrown by `createIssuer()` and the CLI before
 * anything starts) and Management API errors (each carrying its HTTP status and the stable `code` sent
 * in the `{ "code", "message" }` body). OAuth protocol errors remain oidc-provider's; authentication
 * errors of the Management API are `@gatehouse/core`'s `AuthError`s.
 *
 * @module
 */

/**
 * A setting is missing or invalid. The message and {@link ConfigError.option} name the setting.
 *
 * @example
 * ```ts
 * import { createIssuer, ConfigError } from '@gatehouse/issuer';
 * try {
 *   await createIssuer({ baseUrl: 'localhost:3001' });
 * } catch (err) {
 *   if (err instanceof ConfigError) console.error(err.option); // "baseUrl"
 * }
 * ```
 */
export class ConfigError extends TypeError {
  /** Dotted path of the bad setting, e.g. `keys.gracePeriod`. */
  readonly option: string;
  constructor(option: string, must: string) {
    super(`"${option}" ${must}`);
    this.name = 'ConfigError';
    this.option = option;
  }
}

/** Stable machine codes of Management API errors (the `code` of the error body). */
export type ManagementErrorCode =
  | 'invalid_request'
  | 'access_denied'
  | 'not_found'
  | 'conflict'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'internal_error';

/** One problem found while validating a request. */
export interface ValidationIssue {
  /** Where: `body.redirectUris.0`, `query.page`, `params.id`. */
  readonly path: string;
  /** What is wrong (never echoes the submitted value). */
  readonly message: string;
}

/**
 * Base class of Management API errors: an HTTP status, a stable {@link ManagementErrorCode} and a
 * message that is safe to send.
 *
 * @example
 * ```ts
 * import { ManagementError } from '@gatehouse/issuer';
 * if (err instanceof ManagementError) res.writeHead(err.status).end(JSON.stringify(err.toJSON()));
 * ```
 */
export abstract class ManagementError extends Error {
  abstract readonly status: number;
  abstract readonly code: ManagementErrorCode;
  /** Messages are written by the issuer and never contain submitted values, so they may be sent. */
  readonly expose = true;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
  /** The response body. */
  toJSON(): { code: ManagementErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** 400: the body, query or path failed its schema (unknown fields included), or JSON was malformed or too deep. */
export class ValidationError extends ManagementError {
  readonly status = 400;
  readonly code = 'invalid_request' as const;
  /** Every problem found. */
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.issues = Object.freeze([...issues]);
  }
  override toJSON(): { code: 'invalid_request'; message: string; issues?: ValidationIssue[] } {
    return this.issues.length > 0
      ? { code: this.code, message: this.message, issues: [...this.issues] }
      : { code: this.code, message: this.message };
  }
}

/** 403: the token is valid but may not use the Management API (a user token instead of a machine-to-machine one). */
export class AccessDeniedError extends ManagementError {
  readonly status = 403;
  readonly code = 'access_denied' as const;
}

/** 404: no such entity (or route). */
export class NotFoundError extends ManagementError {
  readonly status = 404;
  readonly code = 'not_found' as const;
}

/** 409: a unique name, username, email, indicator or client id is taken, or the entity is protected. */
export class ConflictError extends ManagementError {
  readonly status = 409;
  readonly code = 'conflict' as const;
}

/** 405: the path exists but not with this method. */
export class MethodNotAllowedError extends ManagementError {
  readonly status = 405;
  readonly code = 'method_not_allowed' as const;
  /** Methods the path accepts, for the `Allow` header. */
  readonly allow: readonly string[];
  constructor(allow: readonly string[]) {
    super('Method not allowed');
    this.allow = Object.freeze([...allow]);
  }
}

/** 413: the body is larger than `http.maxBodyBytes`. */
export class PayloadTooLargeError extends ManagementError {
  readonly status = 413;
  readonly code = 'payload_too_large' as const;
  constructor() {
    super('Request body is too large');
  }
}

/** 415: a body that is not `application/json`. */
export class UnsupportedMediaTypeError extends ManagementError {
  readonly status = 415;
  readonly code = 'unsupported_media_type' as const;
  constructor() {
    super('Request body must be application/json');
  }
}

/** Every concrete Management API error class. */
export type AnyManagementError =
  | ValidationError
  | AccessDeniedError
  | NotFoundError
  | ConflictError
  | MethodNotAllowedError
  | PayloadTooLargeError
  | UnsupportedMediaTypeError;

/**
 * Thrown by a {@link Store} when a write would break a uniqueness rule. The management layer turns it
 * into a 409 {@link ConflictError}.
 *
 * @example
 * ```ts
 * import { StoreConflictError } from '@gatehouse/issuer';
 * try { await store.users.create(input); } catch (err) { if (err instanceof StoreConflictError) console.log(err.field); }
 * ```
 */
export class StoreConflictError extends Error {
  /** The entity and field that clashed, e.g. `user.username`. */
  readonly field: string;
  constructor(field: string) {
    super(`${field} is already taken`);
    this.name = 'StoreConflictError';
    this.field = field;
  }
}
