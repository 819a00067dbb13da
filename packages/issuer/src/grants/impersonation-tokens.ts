/**
 * The record of each access token a subject token is exchanged for: oidc-provider signs those JWTs
 * without storing them, so the issuer keeps, per token, its SHA-256 digest, the subject token, the
 * user and the actor. Introspection finds a JWT by its digest (an unknown, ended or expired one is
 * `active: false`), and `POST /api/impersonations/end` ends tokens by subject token or by actor.
 *
 * The token is recorded before the subject token is consumed: an end that runs between the two ends
 * it, or burns the subject token first (the exchange is then refused); either way no token an
 * administrator ended stays active. When the consume loses the race, the record is forgotten.
 *
 * @module
 */
import type { AdapterPayload } from 'oidc-provider';
import { hashSecret } from '../internal/secrets.js';
import type { NewAuditEvent, NewImpersonationToken, Store } from '../storage/store.js';
import type { ActClaim } from './exchange-state.js';
import type { Subject } from './exchange-subject.js';
import { looksLikeJwt } from './token-types.js';

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
 * `subject.use(event)` for the exchange that signed `jwt`: for a subject token, the token is recorded
 * first (and forgotten again when the consume loses the race); a PAT's use is only recorded.
 *
 * @example
 * ```ts
 * await useRecorded(store, subject, successEvent, minted.value, { applicationId: client.clientId, act, now });
 * ```
 */
export async function useRecorded(
  store: Store,
  subject: Subject,
  event: NewAuditEvent,
  jwt: string,
  facts: { readonly applicationId: string; readonly act: ActClaim | undefined; readonly now: number },
): Promise<void> {
  if (subject.subjectToken === undefined) return subject.use(event);
  const record = impersonationRecord(jwt, { ...facts, subjectTokenId: subject.subjectToken.id });
  await store.impersonationTokens.record(record, facts.now);
  try {
    await subject.use(event);
  } catch (err) {
    await store.impersonationTokens.forget(record.jti);
    throw err;
  }
}

/**
 * The adapter payload of the impersonation token `value`, unless it is unknown, ended or expired at
 * `now` (what introspection of a JWT access token reads).
 *
 * @example
 * ```ts
 * if (model === 'AccessToken' && looksLikeJwt(id)) return findImpersonationPayload(store, id, epoch());
 * ```
 */
export async function findImpersonationPayload(
  store: Store,
  value: string,
  now: number,
): Promise<AdapterPayload | undefined> {
  if (!looksLikeJwt(value)) return undefined;
  const found = await store.impersonationTokens.findActive(hashSecret(value), now);
  return found === undefined ? undefined : ({ ...found.payload } as AdapterPayload);
}
