/**
 * A flat, log-safe summary of a verified token for audit trails: who the request acts for, who really
 * acted (RFC 8693 `act` chain), through which client, and with which grant. Never contains the token.
 *
 * @module
 */
import { actorChain } from './actor.js';
import type { AuthInfo } from './types.js';

/** One audit line's worth of facts about a verified token. */
export interface AuditRecord {
  /** The subject the request acts for (the impersonated user under impersonation). */
  readonly subject: string | null;
  /** The acting party (`act.sub`), or `null` when nobody acts on the subject's behalf. */
  readonly actor: string | null;
  /** The full actor chain, most recent first (`[act.sub, act.act.sub, …]`). */
  readonly actorChain: readonly string[];
  readonly delegated: boolean;
  readonly clientId: string | null;
  readonly jti: string | null;
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly scopes: readonly string[];
  /** ISO 8601 expiry. */
  readonly expiresAt: string;
}

/**
 * Summarize a verified token for logs. Safe to serialize: it never holds the token itself.
 *
 * @example
 * ```ts
 * import { toAuditRecord } from '@gatehouse/core';
 *
 * logger.info({ audit: toAuditRecord(req.auth) }, 'order viewed');
 * // { subject: 'user-42', actor: 'support-7', actorChain: ['support-7'], delegated: true, ... }
 * ```
 */
export function toAuditRecord(info: AuthInfo): AuditRecord {
  const chain = actorChain(info.actor);
  const jti = info.claims.jti;
  return {
    subject: info.subject ?? null,
    actor: chain[0] ?? null,
    actorChain: chain,
    delegated: info.delegated,
    clientId: info.clientId ?? null,
    jti: typeof jti === 'string' ? jti : null,
    issuer: info.issuer,
    audience: [...info.audience],
    scopes: [...info.scopes],
    expiresAt: info.expiresAt.toISOString(),
  };
}
