/**
 * `/api/users/{id}/personal-access-tokens`: personal access tokens (PATs). A PAT stands in for its
 * user at the token endpoint (token exchange with `subject_token_type`
 * `urn:gatehouse:params:oauth:token-type:personal_access_token`) until it expires or is revoked. The
 * value (`gpat_` + 256 random bits) is shown once at creation; only its SHA-256 digest is stored, and
 * listing never returns values (catalogue B48, B49).
 *
 * @module
 */
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../errors.js';
import { PERSONAL_ACCESS_TOKEN_PREFIX } from '../grants/exchange-subject.js';
import { newId } from '../internal/ids.js';
import { generateToken, hashSecret } from '../internal/secrets.js';
import type { PersonalAccessTokenRecord, StoreTables } from '../storage/store.js';
import { id, isoInput, isoTime, list, name, type SharedSchemas, scopeName } from './primitives.js';
import { defineRoute, found, iso, isoOrNull, type ManagementDeps, type RouteDef } from './router.js';

/** API view of a PAT: never its value or digest. */
export function presentPersonalAccessToken(pat: PersonalAccessTokenRecord) {
  return {
    id: pat.id,
    userId: pat.userId,
    name: pat.name,
    scopes: pat.scopes === null ? null : [...pat.scopes],
    expiresAt: isoOrNull(pat.expiresAt),
    createdAt: iso(pat.createdAt),
    lastUsedAt: isoOrNull(pat.lastUsedAt),
  };
}

/**
 * The request and response schemas of `/api/users/{id}/personal-access-tokens`.
 *
 * @example
 * ```ts
 * const schemas = buildPersonalAccessTokenSchemas(buildSharedSchemas());
 * ```
 */
export function buildPersonalAccessTokenSchemas(shared: SharedSchemas) {
  const { requests, responses } = shared;
  const personalAccessToken = z
    .object({
      id,
      userId: z.string(),
      name: z.string(),
      scopes: z.array(z.string()).nullable(),
      expiresAt: isoTime.nullable(),
      createdAt: isoTime,
      lastUsedAt: isoTime.nullable(),
    })
    .register(responses, { id: 'PersonalAccessToken' });
  return {
    ...shared,
    personalAccessToken,
    personalAccessTokenList: list(personalAccessToken, 'PersonalAccessTokenList', shared),
    personalAccessTokenWithValue: personalAccessToken
      .extend({ value: z.string().meta({ description: 'Shown once; only its SHA-256 digest is stored.' }) })
      .register(responses, { id: 'PersonalAccessTokenWithValue' }),
    createPersonalAccessToken: z
      .strictObject({
        name,
        expiresAt: isoInput.optional().meta({ description: 'ISO 8601; must be in the future' }),
        scopes: z.array(scopeName).min(1).max(100).optional().meta({
          description: 'Most scopes an exchanged token may carry; the user’s roles still apply',
        }),
      })
      .register(requests, { id: 'CreatePersonalAccessToken' }),
  };
}

/** The PAT routes. */
export function personalAccessTokenRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildPersonalAccessTokenSchemas(deps.schemas);
  const tag = 'Personal access tokens';
  const path = '/users/{id}/personal-access-tokens';
  const loadUser = async (store: StoreTables, id: string) => found(await store.users.get(id), 'User');
  return [
    defineRoute({
      method: 'GET',
      path,
      summary: "List a user's personal access tokens (never their values)",
      tag,
      scopes: ['users:read', 'users:write'],
      success: { status: 200, schema: schemas.personalAccessTokenList, description: 'The tokens' },
      handler: async ({ params, store }) => {
        const user = await loadUser(store, params.id!);
        const items = await store.personalAccessTokens.listFor(user.id);
        return { status: 200, body: { items: items.map(presentPersonalAccessToken) } };
      },
    }),
    defineRoute({
      method: 'POST',
      path,
      summary: 'Create a personal access token',
      tag,
      scopes: ['users:write'],
      body: schemas.createPersonalAccessToken,
      change: { event: 'personal_access_token.created', acts: { user: 'id' } },
      success: {
        status: 201,
        schema: schemas.personalAccessTokenWithValue,
        description: 'The token; its value is shown only now',
      },
      handler: async ({ params, body, store, describe }) => {
        const user = await loadUser(store, params.id!);
        const now = deps.now();
        const expiresAt = body.expiresAt === undefined ? null : Math.floor(Date.parse(body.expiresAt) / 1000);
        if (expiresAt !== null && expiresAt <= now) {
          throw new ValidationError('Invalid body', [
            { path: 'body.expiresAt', message: 'must be in the future' },
          ]);
        }
        const value = generateToken(PERSONAL_ACCESS_TOKEN_PREFIX);
        const pat = await store.personalAccessTokens.create(
          {
            id: newId('personalAccessToken'),
            tokenHash: hashSecret(value),
            userId: user.id,
            name: body.name,
            scopes: body.scopes === undefined ? null : [...new Set(body.scopes)],
            expiresAt,
          },
          now,
        );
        describe({
          details: { personalAccessTokenId: pat.id, name: pat.name, scopes: pat.scopes, expiresAt },
        });
        return {
          status: 201,
          body: { ...presentPersonalAccessToken(pat), value },
          headers: {
            location: `${deps.config.managementAudience}/users/${user.id}/personal-access-tokens/${pat.id}`,
          },
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${path}/{tokenId}`,
      summary: 'Revoke a personal access token',
      tag,
      scopes: ['users:write'],
      change: { event: 'personal_access_token.revoked', acts: { user: 'id' } },
      success: { status: 204, description: 'Revoked' },
      handler: async ({ params, store, describe }) => {
        if (!(await store.personalAccessTokens.delete(params.id!, params.tokenId!)))
          throw new NotFoundError('Personal access token not found');
        describe({ details: { personalAccessTokenId: params.tokenId! } });
        return { status: 204 };
      },
    }),
  ];
}
