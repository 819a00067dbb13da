/**
 * Every error as JSON, never an HTML page or a stack trace: an auth failure keeps the RFC 6750 answer
 * the guard prepared (status, `WWW-Authenticate`, body) and is audited when made under impersonation;
 * 404 is `not_found`; a refused body (malformed JSON, too large, invalid) is `invalid_request`; anything
 * else is logged and answered `server_error`.
 *
 * @module
 */

import type { Logger } from '@gatehouse/example-shared/audit';
import { type AuthenticatedRequest, GatehouseException } from '@gatehouse/nestjs';
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Inject,
  NotFoundException,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { auditRequest } from './audit.interceptor.ts';
import { LOGGER } from './tokens.ts';

/** The status of an error thrown by a body parser (Express' `http-errors`, Fastify's errors), if any. */
function clientStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

const isInvalidRequest = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && (body as { error?: unknown }).error === 'invalid_request';

/** The app's one exception filter (`APP_FILTER`). */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
  ) {}

  catch(error: unknown, context: ArgumentsHost): void {
    const http = context.switchToHttp();
    const { body, status } = this.answer(error, http.getRequest());
    this.host.httpAdapter.reply(http.getResponse(), body, status);
  }

  /** The JSON answer to `error` (and its audit line when it is a refusal under impersonation). */
  private answer(error: unknown, request: AuthenticatedRequest): { body: object; status: number } {
    if (error instanceof GatehouseException) {
      auditRequest(this.logger, this.host, request);
      return { body: error.getResponse() as object, status: error.getStatus() };
    }
    if (error instanceof NotFoundException) return { body: { error: 'not_found' }, status: 404 };
    // The handler's own answer to a bad body (see OrdersController.create).
    if (error instanceof HttpException && isInvalidRequest(error.getResponse())) {
      return { body: error.getResponse() as object, status: error.getStatus() };
    }
    const status = error instanceof HttpException ? error.getStatus() : clientStatus(error);
    if (status !== undefined && status < 500) {
      const description = status === 400 ? 'body is not valid JSON' : 'the request body was refused';
      return { body: { error: 'invalid_request', error_description: description }, status };
    }
    this.logger.error(
      JSON.stringify({ event: 'error', message: error instanceof Error ? error.message : String(error) }),
    );
    return { body: { error: 'server_error' }, status: 500 };
  }
}
