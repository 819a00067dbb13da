/**
 * The one exception the guard throws: core's `AuthError` as a Nest `HttpException`, so Nest's exception
 * layer (and any filter of the app) handles it like every other HTTP error.
 *
 * @module
 */
import type { AuthError, AuthErrorReason } from '@gatehouse/core';
import { HttpException } from '@nestjs/common';

/**
 * A refused request: the RFC 6750 status and JSON body (`{ error, error_description }`) of the
 * `AuthError` in {@link GatehouseException.authError}, and the headers that go with it
 * (`WWW-Authenticate`, `DPoP-Nonce`, `Retry-After`). With the default `handleErrors: true` the guard
 * has already put those headers on the response, so Nest's default filter sends the full answer.
 *
 * @example
 * ```ts
 * import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
 * import { GatehouseException } from '@gatehouse/nestjs';
 *
 * @Catch(GatehouseException)
 * class AuthErrorFilter implements ExceptionFilter {
 *   catch(exception: GatehouseException, host: ArgumentsHost) {
 *     const response = host.switchToHttp().getResponse();
 *     response.status(exception.getStatus()).set(exception.headers).json(exception.getResponse());
 *   }
 * }
 * ```
 */
export class GatehouseException extends HttpException {
  /** The error core raised: status, OAuth `code`, stable `reason`, challenge context. */
  readonly authError: AuthError;
  /** The response headers of the error, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(error: AuthError) {
    super(error.toJSON(), error.status, { cause: error, description: error.description });
    this.name = 'GatehouseException';
    this.message = error.description;
    this.authError = error;
    this.headers = error.headers;
  }

  /** The stable machine-readable cause (`missing_token`, `expired`, `insufficient_scope`, …). */
  get reason(): AuthErrorReason {
    return this.authError.reason;
  }
}
