/**
 * The request and response schemas of `/api/applications` (registered for the OpenAPI document), and
 * the field schemas a create and an update body share (`impersonationTtl` also serves the seed file).
 * The routes are in applications.ts.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import { APPLICATION_TYPES } from '../storage/store.js';
import {
  atLeastOne,
  customData,
  id,
  isoTime,
  name,
  page,
  redirectUri,
  type SharedSchemas,
} from './primitives.js';

/** `dpopBoundAccessTokens` of a create or update body. */
const dpopBound = z
  .boolean()
  .meta({
    description:
      'Token requests must carry a DPoP proof (RFC 9449 §5.2 dpop_bound_access_tokens); without one they get invalid_request. Default false.',
  })
  .optional();

/** `requireActorToken` of a create or update body. */
const actorRequired = z
  .boolean()
  .meta({
    description:
      'Every impersonation (token exchange of a subject token) by this application must carry an actor token, so every impersonation token it gets names who acts (act); without one: invalid_request. Personal access token exchanges are not impersonations and are unaffected. Default false.',
  })
  .optional();

/**
 * `impersonationTokenTtl` of a create or update body (`null`: back to the default). Exported for the
 * seed file, which accepts the same values.
 *
 * @example
 * ```ts
 * impersonationTtl.parse(600); // 600
 * ```
 */
export const impersonationTtl = z
  .number()
  .int()
  .min(DEFAULTS.impersonation.minTokenTtl)
  .max(DEFAULTS.impersonation.maxTokenTtl)
  .nullable()
  .meta({
    description: `Lifetime in seconds of the access tokens this application gets by impersonation (${DEFAULTS.impersonation.minTokenTtl}–${DEFAULTS.impersonation.maxTokenTtl}; null: the default, ${DEFAULTS.impersonation.tokenTtl}), never longer than the resource's accessTokenTtl.`,
  })
  .optional();

/**
 * The request and response schemas of `/api/applications` (and the shared ones it uses).
 *
 * @example
 * ```ts
 * const schemas = buildApplicationSchemas(buildSharedSchemas());
 * ```
 */
export function buildApplicationSchemas(shared: SharedSchemas) {
  const { requests, responses } = shared;
  const applicationType = z.enum(APPLICATION_TYPES);
  const authMethod = z.enum(['client_secret_basic', 'client_secret_post']);
  const application = z
    .object({
      id,
      clientId: z.string(),
      name: z.string(),
      type: applicationType,
      redirectUris: z.array(z.string()),
      postLogoutRedirectUris: z.array(z.string()),
      tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post', 'none']),
      firstParty: z.boolean(),
      tokenExchangeEnabled: z.boolean(),
      dpopBoundAccessTokens: z.boolean(),
      requireActorToken: z.boolean(),
      impersonationTokenTtl: z
        .number()
        .int()
        .meta({ description: 'Lifetime of its impersonation tokens before the resource cap, in seconds' }),
      customData: z.record(z.string(), z.unknown()),
      secretUpdatedAt: isoTime.nullable(),
      createdAt: isoTime,
      updatedAt: isoTime,
    })
    .register(responses, { id: 'Application' });
  /** What a create and an update body may both set. */
  const settable = {
    redirectUris: z.array(redirectUri).max(20).optional(),
    postLogoutRedirectUris: z.array(redirectUri).max(20).optional(),
    tokenEndpointAuthMethod: authMethod.optional(),
    firstParty: z.boolean().optional(),
    tokenExchangeEnabled: z.boolean().optional(),
    dpopBoundAccessTokens: dpopBound,
    requireActorToken: actorRequired,
    impersonationTokenTtl: impersonationTtl,
    customData: customData.optional(),
  };
  return {
    ...shared,
    application,
    applicationsPage: page(application, 'ApplicationPage', shared),
    applicationWithSecret: application
      .extend({
        clientSecret: z
          .string()
          .meta({ description: 'Shown once; only its SHA-256 digest is stored.' })
          .optional(),
      })
      .register(responses, { id: 'ApplicationWithSecret' }),
    createApplication: z
      .strictObject({ name, type: applicationType, ...settable })
      .register(requests, { id: 'CreateApplication' }),
    updateApplication: z
      .strictObject({ name: name.optional(), ...settable })
      .refine(...atLeastOne)
      .register(requests, { id: 'UpdateApplication' }),
    applicationSecret: z
      .object({ clientId: z.string(), clientSecret: z.string() })
      .register(responses, { id: 'ApplicationSecret' }),
  };
}
