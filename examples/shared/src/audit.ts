/**
 * Audit trail for impersonation: when a support engineer acts for a customer (the token carries an
 * RFC 8693 `act` claim), one JSON line records who the request acted for and who really acted. The
 * line is built by `toAuditRecord()` from `@gatehouse/core`, which never contains the token.
 *
 * @module
 */
import { type AuthInfo, toAuditRecord } from '@gatehouse/core';

/** Where the app writes its lines. `console` fits; so does pino or a test double. */
export interface Logger {
  info(line: string): void;
  error(line: string): void;
}

/**
 * Log one JSON line when `auth` is an impersonation (delegated) token; do nothing otherwise.
 * `subject` is the customer, `actor` the support engineer.
 *
 * @example
 * ```ts
 * auditImpersonation(console, req.auth, 'GET', '/orders');
 * // {"event":"impersonation","method":"GET","path":"/orders","subject":"customer-42","actor":"support-7",...}
 * ```
 */
export function auditImpersonation(
  logger: Logger,
  auth: AuthInfo | undefined,
  method: string,
  path: string,
): void {
  if (auth === undefined || !auth.delegated) return;
  const record = toAuditRecord(auth);
  logger.info(
    JSON.stringify({ event: 'impersonation', time: new Date().toISOString(), method, path, ...record }),
  );
}
