/**
 * `POST /api/subject-tokens`: mint a single-use subject token for RFC 8693 token exchange
 * (impersonation). The integrator's backend calls it after deciding that the actor may impersonate
 * the user; the actor's application then exchanges the token at `/oidc/token`.
 *
 * The value (`sub_` + 256 random bits) is returned once; only its SHA-256 digest is stored. The server
 * sets the lifetime (`subjectTokens.ttl`), the id and the creator (the calling application), so a body
 * can never choose them (catalogue B43).
 *
 * @module
 */
import { z } from 'zod';
import { NotFoundError, UserSuspendedError } from '../errors.js';
import { SUBJECT_TOKEN_PREFIX } from '../grants/exchange-subject.js';
import { newId } from '../internal/ids.js';
import { generateToken, hashSecret } from '../internal/secrets.js';
import { id, type SharedSchemas, subjectContext } from './primitives.js';
import { defineRoute, type ManagementDeps, type RouteDef } from './router.js';

/**
 * The request and response schemas of `POST /api/subject-tokens`.
 *
 * @example
 * ```ts
 * const schemas = buildSubjectTokenSchemas(buildSharedSchemas());
 * ```
 */
export function buildSubjectTokenSchemas(shared: SharedSchemas) {
  return {
    ...shared,
    createSubjectToken: z
      .strictObject({
        userId: id.meta({ description: 'The user to impersonate' }),
        context: subjectContext.optional().meta({
          description: 'Integrator-defined JSON object (at most 4 KB), handed to getCustomJwtClaims',
        }),
        applicationId: id.optional().meta({ description: 'Only this application may redeem the token' }),
        actorId: id.optional().meta({ description: 'Redeemable only with an actor token of this user' }),
      })
      .register(shared.requests, { id: 'CreateSubjectToken' }),
    subjectToken: z
      .object({
        subjectToken: z.string().meta({ description: 'Shown once; only its SHA-256 digest is stored.' }),
        expiresIn: z.number().int().meta({ description: 'Seconds until it expires' }),
      })
      .register(shared.responses, { id: 'SubjectToken' }),
  };
}

/** The subject-token route. */
export function subjectTokenRoutes(deps: ManagementDeps): RouteDef[] {
  const { config } = deps;
  const schemas = buildSubjectTokenSchemas(deps.schemas);
  return [
    defineRoute({
      method: 'POST',
      path: '/subject-tokens',
      summary: 'Create a subject token (impersonation)',
      tag: 'Impersonation',
      scopes: ['subject-tokens:create'],
      body: schemas.createSubjectToken,
      change: { event: 'subject_token.created' },
      success: { status: 201, schema: schemas.subjectToken, description: 'The token, shown once' },
      handler: async ({ body, auth, store, describe }) => {
        const user = await store.users.get(body.userId);
        if (user === undefined) throw new NotFoundError('User not found');
        if (user.suspended) throw new UserSuspendedError('The user is suspended and cannot be impersonated');
        if (body.actorId !== undefined) {
          const actor = await store.users.get(body.actorId);
          if (actor === undefined) throw new NotFoundError('Actor user not found');
        }
        if (body.applicationId !== undefined) {
          const app = await store.applications.get(body.applicationId);
          if (app === undefined) throw new NotFoundError('Application not found');
        }
        const now = deps.now();
        const ttl = config.subjectTokens.ttl;
        const value = generateToken(SUBJECT_TOKEN_PREFIX);
        const createdBy = auth.clientId!;
        const record = await store.subjectTokens.create(
          {
            id: newId('subjectToken'),
            tokenHash: hashSecret(value),
            userId: user.id,
            context: body.context ?? {},
            applicationId: body.applicationId ?? null,
            actorId: body.actorId ?? null,
            createdBy,
            expiresAt: now + ttl,
          },
          now,
        );
        describe({
          userId: user.id,
          actorId: record.actorId,
          details: {
            subjectTokenId: record.id,
            boundApplicationId: record.applicationId,
            boundActorId: record.actorId,
            expiresAt: record.expiresAt,
            context: record.context,
          },
        });
        return { status: 201, body: { subjectToken: value, expiresIn: ttl } };
      },
    }),
  ];
}
