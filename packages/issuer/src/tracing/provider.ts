/**
 * oidc-provider's phases as child spans of the request's SERVER span, installed on each provider the
 * issuer builds (`oidc/generation.ts`), and the request's `http.route` from the provider's router:
 *
 * - `oidc.client_authentication` (token endpoint): from the client's lookup until its handler starts
 *   (the secret or assertion checked on the way); the read-ahead of the token request's records is
 *   in it. Elsewhere a lookup is `oidc.client.find`.
 * - `oidc.grant` (token endpoint): the grant type's handler, with `gatehouse.oauth.grant_type` and the
 *   authenticated `gatehouse.oauth.client_id`.
 * - `oidc.token.issue`: each token, code or grant saved (a JWT access token is signed there, after the
 *   custom-claims hook), with `gatehouse.oidc.model`.
 * - `oidc.interaction.details` / `oidc.interaction.finish`: the sign-in pages reading and finishing the
 *   provider's interaction.
 *
 * The request span also gets `gatehouse.oauth.error` when the provider answers with an OAuth error
 * (the code only: descriptions can echo the request). Nothing recorded holds a secret, token or code.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { context, type Span, trace } from '@opentelemetry/api';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
// @ts-expect-error oidc-provider ships no types for its internal state (its grant handlers, typed below)
import instance from 'oidc-provider/lib/helpers/weak_cache.js';
import { setRequestAttribute, setRoute } from './http.js';
import { TRACING_NAMES } from './names.js';
import { activeTracer, inChildSpan, recordingParent } from './tracer.js';

const S = TRACING_NAMES.spans;
const A = TRACING_NAMES.attributes;

type GrantHandler = (ctx: KoaContextWithOIDC) => Promise<void>;
/** The part of oidc-provider's internal state this uses. */
type ProviderState = { grantTypeHandlers?: Map<string, GrantHandler> } | undefined;
const state = instance as (provider: Provider) => ProviderState;

/** The open `oidc.client_authentication` span of each token request. */
const authenticating = new WeakMap<object, Span>();
/** The models whose `save` is traced, each once. */
const MODELS = ['AccessToken', 'ClientCredentials', 'RefreshToken', 'AuthorizationCode', 'Grant'] as const;
const TRACED = Symbol('gatehouse.traced');

/** `/auth/:uid` as an OpenAPI-style template, `/auth/{uid}`. */
const template = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

/** End the request's `oidc.client_authentication` span, if it has one open. */
function endAuthentication(ctx: object): void {
  const span = authenticating.get(ctx);
  if (span === undefined) return;
  authenticating.delete(ctx);
  span.end();
}

/**
 * Install the phase spans and route naming on `provider`, mounted at `mountPath` (`{basePath}/oidc`).
 * Call once its grants are registered.
 *
 * @example
 * ```ts
 * registerGrants(provider, deps);
 * traceProvider(provider, `${config.basePath}/oidc`);
 * ```
 */
export function traceProvider(provider: Provider, mountPath: string): void {
  provider.use(async (ctx, next) => {
    if (activeTracer() === undefined) return next();
    try {
      await next();
    } finally {
      endAuthentication(ctx);
      const req = ctx.req as IncomingMessage;
      const path = (ctx as { routerPath?: unknown }).routerPath;
      if (typeof path === 'string') setRoute(req, `${mountPath}${template(path)}`);
      const error = (ctx.body as { error?: unknown } | undefined)?.error;
      if (ctx.status >= 400 && typeof error === 'string' && /^[\w.-]{1,64}$/.test(error))
        setRequestAttribute(req, A.oauthError, error);
    }
  });

  const handlers = state(provider)?.grantTypeHandlers;
  for (const [grantType, handler] of handlers ?? []) {
    handlers!.set(grantType, (ctx) => {
      endAuthentication(ctx);
      const clientId = ctx.oidc.client?.clientId;
      return inChildSpan(
        S.grant,
        { [A.grantType]: grantType, ...(clientId === undefined ? {} : { [A.clientId]: clientId }) },
        () => handler(ctx),
        { expected: isOAuthError },
      );
    });
  }

  const Client = provider.Client as unknown as { find: (id: string) => Promise<unknown> };
  const find = Client.find.bind(Client);
  Client.find = (id: string) => {
    if (activeTracer() === undefined) return find(id);
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'token' || authenticating.has(ctx))
      return inChildSpan(S.clientLookup, {}, () => find(id));
    const parent = recordingParent();
    if (parent === undefined) return find(id);
    // Left open until the grant's handler starts (or the request ends): the secret is checked after the lookup.
    const span = parent.tracer.startSpan(S.clientAuthentication, {}, parent.context);
    authenticating.set(ctx, span);
    return context.with(trace.setSpan(parent.context, span), () => find(id));
  };

  for (const name of MODELS) {
    const model = (provider as unknown as Record<string, { prototype: Record<PropertyKey, unknown> }>)[name];
    const prototype = model?.prototype;
    if (prototype === undefined || Object.hasOwn(prototype, TRACED)) continue;
    const save = prototype.save as ((this: unknown, ...args: unknown[]) => Promise<unknown>) | undefined;
    if (typeof save !== 'function') continue;
    prototype[TRACED] = true;
    prototype.save = function tracedSave(this: unknown, ...args: unknown[]) {
      return inChildSpan(S.issue, { [A.model]: name }, () => save.apply(this, args), {
        expected: isOAuthError,
      });
    };
  }

  const interactions = provider as unknown as Record<
    'interactionDetails' | 'interactionFinished',
    (...args: unknown[]) => Promise<unknown>
  >;
  const details = interactions.interactionDetails.bind(provider);
  const finished = interactions.interactionFinished.bind(provider);
  // An expired or unknown interaction (SessionNotFound, a 400) is the browser's, not a fault.
  interactions.interactionDetails = (...args) =>
    inChildSpan(S.interactionDetails, {}, () => details(...args), { expected: isOAuthError });
  interactions.interactionFinished = (...args) =>
    inChildSpan(S.interactionFinish, {}, () => finished(...args), { expected: isOAuthError });
}

/** An OAuth error the provider answers with (a 4xx): the client's error, not the span's failure. */
function isOAuthError(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status < 500;
}
