/**
 * `/api/signing-keys`: list the signing keys (public information only) and rotate them.
 *
 * @module
 */
import { z } from 'zod';
import { describeKey } from '../keys.js';
import type { SigningKeyRecord } from '../storage/store.js';
import { isoTime, list, type SharedSchemas } from './primitives.js';
import { defineRoute, iso, isoOrNull, type ManagementDeps, type RouteDef } from './router.js';

/** API view of a signing key: never the private part. */
export function presentKey(key: SigningKeyRecord) {
  const info = describeKey(key);
  return {
    ...info,
    createdAt: iso(info.createdAt),
    retiredAt: isoOrNull(info.retiredAt),
    expiresAt: isoOrNull(info.expiresAt),
  };
}

/**
 * The response schemas of `/api/signing-keys`.
 *
 * @example
 * ```ts
 * const schemas = buildKeySchemas(buildSharedSchemas());
 * ```
 */
export function buildKeySchemas(shared: SharedSchemas) {
  const signingKey = z
    .object({
      kid: z.string(),
      alg: z.string(),
      status: z.enum(['active', 'retired']),
      createdAt: isoTime,
      retiredAt: isoTime.nullable(),
      expiresAt: isoTime.nullable(),
    })
    .register(shared.responses, { id: 'SigningKey' });
  return { ...shared, signingKey, signingKeyList: list(signingKey, 'SigningKeyList', shared) };
}

/** The signing-key routes. */
export function keyRoutes(deps: ManagementDeps): RouteDef[] {
  const schemas = buildKeySchemas(deps.schemas);
  const tag = 'Signing keys';
  return [
    defineRoute({
      method: 'GET',
      path: '/signing-keys',
      summary: 'List signing keys',
      tag,
      scopes: ['keys:read', 'keys:write'],
      success: {
        status: 200,
        schema: schemas.signingKeyList,
        description: 'Active and retired keys, newest first',
      },
      handler: async () => ({ status: 200, body: { items: (await deps.store.keys.list()).map(presentKey) } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/signing-keys/rotate',
      summary: 'Rotate the signing key',
      tag,
      scopes: ['keys:write'],
      // The rotation also reloads this instance's keys: the store records the event with the rotation.
      change: { event: 'signing_key.rotated', transaction: false, recentSignIn: 'always' },
      success: {
        status: 201,
        schema: schemas.signingKey,
        description: 'The new active key; the previous one stays in the JWKS for the grace period',
      },
      handler: async ({ describe, takeEvent }) => {
        const key = await deps.rotateKeys((created) => {
          describe({ details: { targets: { kid: created.kid }, alg: created.alg } });
          return takeEvent();
        });
        return { status: 201, body: presentKey(key) };
      },
    }),
  ];
}
