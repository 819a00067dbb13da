/**
 * The record of each access token a subject token is exchanged for: oidc-provider signs those JWTs
 * without storing them, so the issuer keeps, per token, its SHA-256 digest, the subject token, the
 * user and the actor. Introspection finds a JWT by its digest (`impersonation-introspection.ts`),
 * and `POST /api/impersonations/end` ends tokens by subject token or by actor.
 *
 * The token is recorded by the statement that consumes its subject token (and records the success
 * event), so an exchange stays two round trips on PostgreSQL, and a token exists in the record
 * exactly when its exchange won. Ending by subject token first consumes the subject token, which
 * waits for an exchange in flight, then ends the tokens: none slips through.
 *
 * @module
 */
import { hashSecret } from '../internal/secrets.js';
import type { NewAuditEvent, NewImpersonationToken } from '../storage/store.js';
import type { ActClaim } from './exchange-state.js';
import type { Subject } from './exchange-subject.js';

/** The claims of a JWT this issuer just signed (read, not verified: it never left the process). */
function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * The record of a freshly signed impersonation token `jwt`, with the payload introspection answers
 * from (oidc-provider's `AccessToken` fields; `act` travels as an extra claim).
 *
 * @example
 * ```ts
 * const record = impersonationRecord(value, { subjectTokenId: 'sbt_1', applicationId: 'support', act });
 * await store.impersonationTokens.record(record, now);
 * ```
 */
export function impersonationRecord(
  jwt: string,
  facts: {
    readonly subjectTokenId: string;
    readonly applicationId: string;
    readonly act?: ActClaim | undefined;
  },
): NewImpersonationToken {
  const claims = claimsOf(jwt);
  const cnf = claims.cnf as { jkt?: string } | undefined;
  const payload = {
    kind: 'AccessToken',
    jti: claims.jti,
    iat: claims.iat,
    exp: claims.exp,
    accountId: claims.sub,
    clientId: claims.client_id,
    aud: claims.aud,
    scope: claims.scope,
    gty: 'urn:ietf:params:oauth:grant-type:token-exchange',
    ...(cnf?.jkt === undefined ? {} : { jkt: cnf.jkt }),
    ...(facts.act === undefined ? {} : { extra: { act: facts.act } }),
  };
  return {
    jti: String(claims.jti),
    tokenHash: hashSecret(jwt),
    subjectTokenId: facts.subjectTokenId,
    userId: String(claims.sub),
    actorId: facts.act?.sub ?? null,
    applicationId: facts.applicationId,
    payload,
    expiresAt: Number(claims.exp),
  };
}

/**
 * `subject.use(event)` for the exchange that signed `jwt`: a subject token is consumed together with
 * the record of the token (one statement on PostgreSQL); a PAT's use is only recorded.
 *
 * @example
 * ```ts
 * await useRecorded(subject, successEvent, minted.value, { applicationId: client.clientId, act });
 * ```
 */
export function useRecorded(
  subject: Subject,
  event: NewAuditEvent,
  jwt: string,
  facts: { readonly applicationId: string; readonly act: ActClaim | undefined },
): Promise<void> {
  if (subject.subjectToken === undefined) return subject.use(event);
  return subject.use(event, impersonationRecord(jwt, { ...facts, subjectTokenId: subject.subjectToken.id }));
}
