/**
 * The Management API assembled: every resource's routes in one table, the router that authenticates
 * and dispatches them, and the OpenAPI document generated from the same table (built on first request).
 *
 * @module
 */
import type { AuthInfo, Verifier } from '@gatehouse/core';
import { epoch } from '../internal/ids.js';
import { applicationRoutes } from './applications.js';
import { auditRoutes } from './audit-events.js';
import { impersonationRoutes } from './impersonations.js';
import { keyRoutes } from './keys.js';
import { buildOpenApi } from './openapi.js';
import { personalAccessTokenRoutes } from './personal-access-tokens.js';
import { buildSharedSchemas } from './primitives.js';
import { resourceRoutes } from './resources.js';
import { roleRoutes } from './roles.js';
import { createManagementRouter, type ManagementDeps, type RouteDef } from './router.js';
import { subjectTokenRoutes } from './subject-tokens.js';
import { userRoutes } from './users.js';
import { webhookRoutes } from './webhooks.js';

/**
 * What {@link createManagementApi} needs: the handlers' dependencies (schemas and clock are its own)
 * and the current access-token verifier.
 *
 * @example
 * ```ts
 * const options: ManagementApiOptions = { config, store, log, audit, rotateKeys, validateApplication, verifier: () => verifier };
 * ```
 */
export interface ManagementApiOptions extends Omit<ManagementDeps, 'schemas' | 'now'> {
  /** The verifier of the moment (it is rebuilt when the signing keys change). */
  readonly verifier: () => Verifier;
  /** Counts a request of an authenticated client; throws a `RateLimitedError` over its limit. */
  readonly limit?: ((auth: AuthInfo) => Promise<void>) | undefined;
}

/**
 * The Management API request handler: resolves to whether it answered the path.
 *
 * @example
 * ```ts
 * const management = createManagementApi(options);
 * if (!(await management(req, res, '/api/users', url))) sendJson(res, 404, { code: 'not_found' });
 * ```
 */
export function createManagementApi(
  options: ManagementApiOptions,
): ReturnType<typeof createManagementRouter> {
  const { verifier, limit, ...rest } = options;
  const schemas = buildSharedSchemas();
  const deps: ManagementDeps = { ...rest, schemas, now: epoch };
  const routes: RouteDef[] = [
    ...userRoutes(deps),
    ...applicationRoutes(deps),
    ...resourceRoutes(deps),
    ...roleRoutes(deps),
    ...keyRoutes(deps),
    ...personalAccessTokenRoutes(deps),
    ...subjectTokenRoutes(deps),
    ...impersonationRoutes(deps),
    ...auditRoutes(deps),
    ...webhookRoutes(deps),
  ];
  let openapi: unknown;
  return createManagementRouter({
    deps,
    routes,
    verifier,
    limit,
    openapi: () => {
      openapi ??= buildOpenApi(options.config, routes, schemas);
      return openapi;
    },
  });
}
