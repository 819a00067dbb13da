/**
 * The audit line of a request made under impersonation that the guard let through. (Refused ones are
 * audited by the exception filter: an interceptor never runs for them.)
 *
 * @module
 */

import { auditImpersonation, type Logger } from '@gatehouse/example-shared/audit';
import type { AuthenticatedRequest } from '@gatehouse/nestjs';
import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Observable } from 'rxjs';
import { LOGGER } from './tokens.ts';

/** Log the request when its token is an impersonation token, then handle it. */
@Injectable()
export class ImpersonationAudit implements NestInterceptor {
  constructor(
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    auditRequest(this.logger, this.host, context.switchToHttp().getRequest());
    return next.handle();
  }
}

/** Write the audit line of `request` if it was made under impersonation (for the filter too). */
export function auditRequest(logger: Logger, host: HttpAdapterHost, request: AuthenticatedRequest): void {
  const adapter = host.httpAdapter;
  const path = String(adapter.getRequestUrl(request)).split('?', 1)[0] ?? '/';
  auditImpersonation(logger, request.auth, adapter.getRequestMethod(request), path);
}
