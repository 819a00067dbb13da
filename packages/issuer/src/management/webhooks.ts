/**
 * `/api/webhooks`: endpoints that receive every impersonation event (`WEBHOOK_EVENT_TYPES`) as signed
 * JSON POSTs, and the record of their deliveries. The signing secret (`whsec_` + 256 random bits) is
 * shown once at creation and stored sealed (`webhooks/secret-box.ts`); it is never listed. A URL must
 * be `https:`, or `http:` on a loopback host (development), without credentials or a fragment
 * (catalogue B94), and its host must be a target the issuer may reach (F13, `webhooks/targets.ts`):
 * an address literal is checked here, a name at each delivery. `POST /webhooks/{id}/secret` issues a
 * new secret, shown once, while the one it replaces keeps signing for an overlap (F18): deliveries
 * then carry a `v1` signature for each, so receivers can switch at their pace.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import { NotFoundError } from '../errors.js';
import { newId } from '../internal/ids.js';
import { generateToken } from '../internal/secrets.js';
import {
  type StoreTables,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryRecord,
  type WebhookEndpointRecord,
} from '../storage/store.js';
import { createSecretBox } from '../webhooks/secret-box.js';
import {
  createTargetPolicy,
  isLoopbackHost,
  type TargetPolicy,
  type TargetRefusal,
} from '../webhooks/targets.js';
import type { Authority } from './authority.js';
import {
  description,
  id,
  isoTime,
  NO_NUL,
  noNul,
  page,
  pageQuery,
  type SharedSchemas,
} from './primitives.js';
import { defineRoute, found, iso, isoOrNull, type ManagementDeps, type RouteDef } from './router.js';

/** Prefix of webhook signing secrets. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

const TARGET_REFUSED: Readonly<Record<TargetRefusal, string>> = {
  forbidden_address: 'must not target a cloud metadata, unspecified, multicast or broadcast address',
  private_address:
    'must not target a private, link-local or reserved address unless it is listed in webhooks.allowedPrivateTargets',
  loopback_address:
    'must not target loopback unless the issuer runs on loopback or it is listed in webhooks.allowedPrivateTargets',
  internal_name:
    'must not target an internal host name (localhost, a single label, .local, .internal …) unless it is listed in webhooks.allowedPrivateTargets',
};

/**
 * Why `value` may not receive webhooks, or `undefined` when it may: it must be an absolute `https:`
 * URL, or `http:` on a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`), without credentials or a
 * fragment, whose host `policy` allows (never the URL itself in the answer: it may hold a credential).
 *
 * @example
 * ```ts
 * webhookUrlProblem('https://hooks.example.com/gatehouse', policy); // undefined
 * webhookUrlProblem('https://10.0.0.5/hook', policy); // 'must not target a private … address …'
 * ```
 */
export function webhookUrlProblem(value: string, policy: TargetPolicy): string | undefined {
  const url = URL.parse(value);
  if (url === null || url.hash !== '' || value.includes('#') || url.username !== '' || url.password !== '')
    return 'must be an absolute URL without credentials or a fragment';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'must be an https URL (http only on a loopback host: localhost, 127.0.0.0/8, [::1])';
  const refusal = policy.checkHost(url.hostname);
  return refusal === undefined ? undefined : TARGET_REFUSED[refusal];
}

/**
 * API view of an endpoint: never its secret, and its URL's query string only to a caller that may
 * change webhooks (`fullUrl`; catalogue F22). `status` is `disabled` once it failed for
 * `webhooks.disableAfter` seconds (`POST /webhooks/{id}/enable` brings it back).
 *
 * @example
 * ```ts
 * presentWebhook(endpoint).status; // 'active'
 * ```
 */
export function presentWebhook(endpoint: WebhookEndpointRecord, fullUrl = true) {
  return {
    id: endpoint.id,
    url: fullUrl ? endpoint.url : withoutQuery(endpoint.url),
    description: endpoint.description,
    events: [...endpoint.events],
    status: endpoint.disabledAt === null ? ('active' as const) : ('disabled' as const),
    failingSince: isoOrNull(endpoint.failingSince),
    disabledAt: isoOrNull(endpoint.disabledAt),
    // The rotated-out secret still signs until then (null once it no longer does).
    previousSecretExpiresAt:
      endpoint.previousSecret !== null && (endpoint.previousSecretExpiresAt ?? 0) > Date.now() / 1000
        ? iso(endpoint.previousSecretExpiresAt!)
        : null,
    createdAt: iso(endpoint.createdAt),
  };
}

/**
 * `url` with its query string replaced by `?…`: a receiver's URL often carries a token in its query,
 * which a caller that may only read webhooks (a console viewer) must not see (catalogue F22).
 *
 * @example
 * ```ts
 * withoutQuery('https://hooks.example.com/in?token=abc'); // 'https://hooks.example.com/in?…'
 * ```
 */
export function withoutQuery(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?…`;
}

/** Whether the caller may see webhook URLs whole: it may change them (`webhooks:write`, or `all`). */
const seesUrls = (authority: Authority) => authority.all || authority.managementScopes.has('webhooks:write');

/**
 * API view of a delivery: ids, type, status and timings; the event body sent only when `withEvent`
 * (the caller may read the audit trail: it is an audit event, catalogue F17).
 *
 * @example
 * ```ts
 * presentDelivery(delivery, auth.hasAnyScope('audit:read', 'all'));
 * ```
 */
export function presentDelivery(delivery: WebhookDeliveryRecord, withEvent: boolean) {
  return {
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: iso(delivery.createdAt),
    lastAttemptAt: isoOrNull(delivery.lastAttemptAt),
    nextAttemptAt: delivery.status === 'pending' ? new Date(delivery.nextAttemptMs).toISOString() : null,
    deliveredAt: isoOrNull(delivery.deliveredAt),
    ...(withEvent ? { event: JSON.parse(delivery.payload) as Record<string, unknown> } : {}),
  };
}

/**
 * The request and response schemas of `/api/webhooks`.
 *
 * @example
 * ```ts
 * const schemas = buildWebhookSchemas(buildSharedSchemas(), createTargetPolicy({ baseUrl, allowedPrivateTargets: [] }));
 * ```
 */
export function buildWebhookSchemas(shared: SharedSchemas, policy: TargetPolicy) {
  const { requests, responses } = shared;
  const webhook = z
    .object({
      id,
      url: z.string(),
      description: z.string(),
      events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
      status: z.enum(['active', 'disabled']).meta({
        description: 'disabled: it kept failing for webhooks.disableAfter seconds; nothing is queued or sent',
      }),
      failingSince: isoTime
        .nullable()
        .meta({ description: 'Since when every attempt has failed (null once a delivery succeeds)' }),
      disabledAt: isoTime.nullable(),
      previousSecretExpiresAt: isoTime.nullable().meta({
        description: 'Until when the secret a rotation replaced still signs deliveries (null: none does)',
      }),
      createdAt: isoTime,
    })
    .register(responses, { id: 'Webhook' });
  const delivery = z
    .object({
      eventId: z.string(),
      eventType: z.enum(WEBHOOK_EVENT_TYPES),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      lastStatus: z.number().int().nullable().meta({ description: 'HTTP status of the last answer' }),
      lastError: z.string().nullable().meta({ description: 'Why the last attempt failed' }),
      createdAt: isoTime,
      lastAttemptAt: isoTime.nullable(),
      nextAttemptAt: isoTime.nullable().meta({ description: 'When the next attempt is due (pending only)' }),
      deliveredAt: isoTime.nullable(),
      event: z.record(z.string(), z.unknown()).optional().meta({
        description:
          'The JSON body sent (an audit event): only for a caller that also holds audit:read or all',
      }),
    })
    .register(responses, { id: 'WebhookDelivery' });
  return {
    ...shared,
    webhook,
    webhookPage: page(webhook, 'WebhookPage', shared),
    webhookWithSecret: webhook
      .extend({
        secret: z.string().meta({
          description: 'The signing secret (HMAC-SHA256 key), shown once; the issuer keeps it sealed',
        }),
      })
      .register(responses, { id: 'WebhookWithSecret' }),
    deliveryPage: page(delivery, 'WebhookDeliveryPage', shared),
    createWebhook: z
      .strictObject({
        url: z
          .string()
          .max(2_048)
          .refine(noNul, NO_NUL)
          .superRefine((value, context) => {
            const problem = webhookUrlProblem(value, policy);
            if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
          }),
        events: z
          .array(z.enum(WEBHOOK_EVENT_TYPES))
          .min(1)
          .max(WEBHOOK_EVENT_TYPES.length)
          .optional()
          .meta({ description: 'Event types to receive; default: every one' }),
        description: description.optional(),
      })
      .register(requests, { id: 'CreateWebhook' }),
    rotateSecret: z
      .strictObject({
        overlap: z.number().int().min(0).max(DEFAULTS.webhooks.maxSecretOverlap).optional().meta({
          description:
            'Seconds the current secret keeps signing beside the new one (default: the webhooks.secretOverlap setting; 0: stops at once)',
        }),
      })
      .optional()
      .register(requests, { id: 'RotateWebhookSecret' }),
  };
}

/** The webhook routes. */
export function webhookRoutes(deps: ManagementDeps): RouteDef[] {
  const policy = createTargetPolicy({ baseUrl: deps.config.baseUrl, ...deps.config.webhooks });
  const schemas = buildWebhookSchemas(deps.schemas, policy);
  const box = createSecretBox(deps.store);
  const tag = 'Webhooks';
  const load = async (store: StoreTables, id: string) =>
    found(await store.webhooks.getEndpoint(id), 'Webhook');
  return [
    defineRoute({
      method: 'GET',
      path: '/webhooks',
      summary: 'List webhook endpoints (never their secrets)',
      tag,
      scopes: ['webhooks:read', 'webhooks:write'],
      query: pageQuery,
      success: { status: 200, schema: schemas.webhookPage, description: 'A page of endpoints, oldest first' },
      handler: async ({ query, store, authority }) => {
        const result = await store.webhooks.listEndpoints(query);
        const full = seesUrls(authority);
        return {
          status: 200,
          body: { ...result, items: result.items.map((item) => presentWebhook(item, full)) },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks',
      summary: 'Register a webhook endpoint',
      tag,
      scopes: ['webhooks:write'],
      body: schemas.createWebhook,
      change: { event: 'webhook.created', recentSignIn: 'always' },
      success: {
        status: 201,
        schema: schemas.webhookWithSecret,
        description: 'The endpoint; its signing secret is shown only now',
      },
      prepare: async () => {
        // Sealing may read (or create) the issuer's webhook key: before the change's transaction.
        const endpointId = newId('webhookEndpoint');
        const secret = generateToken(WEBHOOK_SECRET_PREFIX);
        return { endpointId, secret, sealed: await box.seal(secret, endpointId) };
      },
      handler: async ({ body, store, prepared, describe }) => {
        const { endpointId, secret, sealed } = prepared;
        const endpoint = await store.webhooks.createEndpoint(
          {
            id: endpointId,
            url: body.url,
            description: body.description ?? '',
            events: [...new Set(body.events ?? WEBHOOK_EVENT_TYPES)],
            secret: sealed,
          },
          deps.now(),
        );
        describe({ details: { targets: { id: endpoint.id }, events: endpoint.events } });
        return {
          status: 201,
          body: { ...presentWebhook(endpoint), secret },
          headers: { location: `${deps.config.managementAudience}/webhooks/${endpoint.id}` },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/{id}',
      summary: 'Get a webhook endpoint',
      tag,
      scopes: ['webhooks:read', 'webhooks:write'],
      success: { status: 200, schema: schemas.webhook, description: 'The endpoint' },
      handler: async ({ params, store, authority }) => ({
        status: 200,
        body: presentWebhook(await load(store, params.id!), seesUrls(authority)),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/{id}/enable',
      summary: 'Enable a webhook endpoint disabled for failing',
      tag,
      scopes: ['webhooks:write'],
      change: { event: 'webhook.enabled' },
      success: {
        status: 200,
        schema: schemas.webhook,
        description: 'The endpoint, active again (events from now on are delivered)',
      },
      handler: async ({ params, store }) => ({
        status: 200,
        body: presentWebhook(found(await store.webhooks.enableEndpoint(params.id!, deps.now()), 'Webhook')),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/webhooks/{id}/secret',
      summary: 'Rotate the signing secret of a webhook endpoint',
      tag,
      scopes: ['webhooks:write'],
      body: schemas.rotateSecret,
      change: { event: 'webhook.secret_rotated' },
      success: {
        status: 200,
        schema: schemas.webhookWithSecret,
        description:
          'The endpoint and its new signing secret, shown only now; the one it replaces keeps signing until previousSecretExpiresAt',
      },
      prepare: async ({ params }) => {
        // Sealing may read (or create) the issuer's webhook key: before the change's transaction.
        const secret = generateToken(WEBHOOK_SECRET_PREFIX);
        return { secret, sealed: await box.seal(secret, params.id!) };
      },
      handler: async ({ params, body, store, prepared }) => {
        const endpoint = await load(store, params.id!);
        const now = deps.now();
        const overlap = body?.overlap ?? deps.config.webhooks.secretOverlap;
        const rotated = found(
          await store.webhooks.rotateSecret(endpoint.id, prepared.sealed, now + overlap, now),
          'Webhook',
        );
        return { status: 200, body: { ...presentWebhook(rotated), secret: prepared.secret } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/webhooks/{id}',
      summary: 'Delete a webhook endpoint and its deliveries',
      tag,
      scopes: ['webhooks:write'],
      change: { event: 'webhook.deleted' },
      success: { status: 204, description: 'Deleted' },
      handler: async ({ params, store }) => {
        if (!(await store.webhooks.deleteEndpoint(params.id!))) throw new NotFoundError('Webhook not found');
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/webhooks/{id}/deliveries',
      summary: "List a webhook endpoint's deliveries",
      tag,
      scopes: ['webhooks:read', 'webhooks:write'],
      query: pageQuery,
      success: {
        status: 200,
        schema: schemas.deliveryPage,
        description:
          'A page of deliveries, newest first (status, attempts, last error; the event body with audit:read)',
      },
      handler: async ({ params, query, store, authority }) => {
        const endpoint = await load(store, params.id!);
        const result = await store.webhooks.listDeliveries(endpoint.id, query);
        // The body is an audit event: shown to whoever may read the audit trail (now), no one else.
        const withEvent = authority.all || authority.managementScopes.has('audit:read');
        return {
          status: 200,
          body: { ...result, items: result.items.map((item) => presentDelivery(item, withEvent)) },
        };
      },
    }),
  ];
}
