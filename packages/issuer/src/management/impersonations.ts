/**
 * `POST /api/impersonations/end`: end an impersonation now. With `subjectTokenId` (or the
 * `subjectToken` value itself), every access token that subject token was exchanged for; with
 * `actorId`, everything that user is currently doing as others (every unexpired impersonation token
 * whose `act` names them). Ended tokens are `active: false` at introspection at once; subject tokens
 * of the selection not redeemed yet are consumed, so they never will be. Other tokens of the same
 * users keep working. One `impersonation.ended` audit event, recorded in the same transaction, names
 * who ended it (`details.endedBy`: the calling application and its token's subject).
 *
 * An API that only verifies JWTs locally cannot learn of the end: it accepts an ended token until its
 * `exp` — which is why impersonation tokens are short-lived (`impersonationTokenTtl`).
 *
 * @module
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors.js';
import { hashSecret } from '../internal/secrets.js';
import type {
  EndedImpersonations,
  ImpersonationSelector,
  StoreTables,
  SubjectTokenRecord,
} from '../storage/store.js';
import { id, type SharedSchemas } from './primitives.js';
import { defineRoute, type ManagementDeps, type RouteDef } from './router.js';

/**
 * The request and response schemas of `POST /api/impersonations/end`.
 *
 * @example
 * ```ts
 * const schemas = buildImpersonationSchemas(buildSharedSchemas());
 * ```
 */
export function buildImpersonationSchemas(shared: SharedSchemas) {
  return {
    ...shared,
    endImpersonation: z
      .strictObject({
        subjectTokenId: id.optional().meta({
          description: 'End every token this subject token was exchanged for (its id, as in the audit trail)',
        }),
        subjectToken: z.string().min(1).max(512).optional().meta({
          description: 'The same, naming the subject token by the value POST /api/subject-tokens returned',
        }),
        actorId: id.optional().meta({ description: 'End everything this user is doing as others' }),
      })
      .refine(
        (body) => Object.values(body).filter((value) => value !== undefined).length === 1,
        'give exactly one of subjectTokenId, subjectToken, actorId',
      )
      .register(shared.requests, { id: 'EndImpersonation' }),
    endedImpersonation: z
      .object({
        endedTokens: z.number().int().meta({ description: 'Access tokens ended (unexpired ones only)' }),
        cancelledSubjectTokens: z
          .number()
          .int()
          .meta({ description: 'Subject tokens not redeemed yet that now never will be' }),
      })
      .register(shared.responses, { id: 'EndedImpersonation' }),
  };
}

type EndBody = { subjectTokenId?: string; subjectToken?: string; actorId?: string };

/** The selector of a request body, with the subject token it names (refused when unknown). */
async function select(
  store: Pick<StoreTables, 'subjectTokens'>,
  body: EndBody,
): Promise<{ selector: ImpersonationSelector; subjectToken?: SubjectTokenRecord }> {
  if (body.actorId !== undefined) return { selector: { actorId: body.actorId } };
  const subjectToken =
    body.subjectTokenId !== undefined
      ? await store.subjectTokens.get(body.subjectTokenId)
      : await store.subjectTokens.findByHash(hashSecret(body.subjectToken ?? ''));
  if (subjectToken === undefined) throw new NotFoundError('Subject token not found');
  return { selector: { subjectTokenId: subjectToken.id }, subjectToken };
}

/**
 * The impersonation routes.
 *
 * @example
 * ```ts
 * const routes = [...subjectTokenRoutes(deps), ...impersonationRoutes(deps)];
 * ```
 */
export function impersonationRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildImpersonationSchemas(deps.schemas);
  return [
    defineRoute({
      method: 'POST',
      path: '/impersonations/end',
      summary: 'End an impersonation now (by subject token, or everything an actor does as others)',
      tag: 'Impersonation',
      scopes: ['subject-tokens:create'],
      body: schemas.endImpersonation,
      change: { event: 'impersonation.ended' },
      success: { status: 200, schema: schemas.endedImpersonation, description: 'What was ended' },
      handler: async ({ body, auth, store, describe, takeEvent }) => {
        if (auth.clientId === undefined) throw new ValidationError('The caller has no client_id');
        const { selector, subjectToken } = await select(store, body);
        const ended: EndedImpersonations = await store.impersonationTokens.end(
          selector,
          deps.now(),
          (changed) => {
            const users = [
              ...new Set([...changed.tokens, ...changed.subjectTokens].map((token) => token.userId)),
            ];
            describe({
              userId: subjectToken?.userId ?? null,
              actorId: 'actorId' in selector ? selector.actorId : (subjectToken?.actorId ?? null),
              details: {
                endedBy: { clientId: auth.clientId, subject: auth.subject ?? null },
                ...('subjectTokenId' in selector ? { subjectTokenId: selector.subjectTokenId } : {}),
                users,
                endedTokens: changed.tokens.map((token) => token.jti),
                cancelledSubjectTokens: changed.subjectTokens.map((token) => token.id),
              },
            });
            return takeEvent();
          },
        );
        return {
          status: 200,
          body: { endedTokens: ended.tokens.length, cancelledSubjectTokens: ended.subjectTokens.length },
        };
      },
    }),
  ];
}
