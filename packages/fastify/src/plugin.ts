/**
 * Fastify 5 plugin: decorates `request.auth` and adds the `requireAuth` / `optionalAuth` hooks and the
 * `requireScope()` and `requireRole()` hook factories, which build a `RequestLike`, call the core verifier and attach the
 * result. Every failure is an `AuthError` from core, sent through `reply` with its status, headers and
 * JSON body, or thrown to Fastify's error handler.
 *
 * @module
 */

import {
  callOptions,
  isAuthError,
  MissingTokenError,
  type RequestLike,
  type ResolvedAdapterOptions,
  resolveAdapterOptions,
  resolveRoleRequirement,
  resolveScopeRequirement,
  type VerifyOptions,
} from '@gatehouse/core';
import { nodeRequestLike } from '@gatehouse/core/node';
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { GatehouseHook, GatehouseOptions, RequireRoleOptions, RequireScopeOptions } from './types.js';

/** The request as core sees it (core's Node view; Fastify's `protocol` and `host` follow `trustProxy`). */
const toRequestLike = (request: FastifyRequest, origin: string | undefined): RequestLike =>
  nodeRequestLike(request.raw, {
    origin,
    headers: request.headers,
    query: request.query as RequestLike['query'],
    body: request.body,
    location: () => ({ protocol: request.protocol, host: request.host, target: request.url }),
  });

/**
 * The options Fastify itself reads from `app.register(plugin, options)` and hands on to the plugin with
 * the plugin's own (see Fastify's "Plugins" reference). They are Fastify's, not Gatehouse's: set aside
 * before the plugin's options are checked for unknown keys.
 */
const REGISTER_OPTIONS: ReadonlySet<string> = new Set(['prefix', 'logLevel', 'logSerializers']);

/** `options` without the keys Fastify's `register()` itself reads. */
const ownOptions = (options: GatehouseOptions): GatehouseOptions => {
  if (typeof options !== 'object' || options === null) return options;
  if (!Object.keys(options).some((key) => REGISTER_OPTIONS.has(key))) return options;
  return Object.fromEntries(
    Object.entries(options).filter(([key]) => !REGISTER_OPTIONS.has(key)),
  ) as GatehouseOptions;
};

const plugin: FastifyPluginCallback<GatehouseOptions> = (app, options, done) => {
  let resolved: ResolvedAdapterOptions;
  try {
    resolved = resolveAdapterOptions(ownOptions(options));
  } catch (err) {
    return done(err as Error);
  }
  // With `warmUp`, registration (and so `app.ready()`) fails with a KeySetError when keys cannot be had.
  if (resolved.warmUp) {
    resolved.verifier.warmUp().then(() => register(app, resolved, done), done);
    return;
  }
  register(app, resolved, done);
};

function register(
  app: Parameters<FastifyPluginCallback<GatehouseOptions>>[0],
  resolved: ResolvedAdapterOptions,
  done: (err?: Error) => void,
): void {
  const { verifier, metadata, allowDelegation, handleErrors, origin } = resolved;
  const authenticated = new WeakSet<FastifyRequest>();
  const isMetadataRoute = (request: FastifyRequest) =>
    metadata !== undefined && request.routeOptions.url === metadata.path;

  const reject = (reply: FastifyReply, err: unknown) => {
    if (!handleErrors || !isAuthError(err)) throw err;
    return reply.code(err.status).headers(err.headers).send(err.toJSON());
  };

  const authenticate = (optional: boolean): GatehouseHook => {
    const call = callOptions({ optional, allowDelegation });
    return async (request, reply) => {
      if (isMetadataRoute(request)) return;
      authenticated.add(request);
      try {
        request.auth = await verifier.authenticate(toRequestLike(request, origin), call);
      } catch (err) {
        return reject(reply, err);
      }
    };
  };

  /** The hook of `requireScope()` and `requireRole()`: `call` checked against `request.auth`. */
  const authorizeRoute =
    (call: VerifyOptions, name: string): GatehouseHook =>
    async (request, reply) => {
      if (isMetadataRoute(request)) return;
      if (!authenticated.has(request))
        throw new Error(`${name}() must run after requireAuth on the same route`);
      try {
        if (request.auth === undefined) throw new MissingTokenError(verifier.context);
        verifier.authorize(request.auth, call);
      } catch (err) {
        return reject(reply, err);
      }
    };
  const requireScope = (scopes: string | readonly string[], scopeOptions?: RequireScopeOptions) =>
    authorizeRoute(resolveScopeRequirement(scopes, scopeOptions), 'requireScope');
  const requireRole = (roles: string | readonly string[], roleOptions?: RequireRoleOptions) =>
    authorizeRoute(resolveRoleRequirement(roles, roleOptions), 'requireRole');

  const noDelegation = Object.freeze({ allowDelegation: false });
  const refuseDelegation: GatehouseHook = async (request, reply) => {
    if (isMetadataRoute(request)) return;
    if (!authenticated.has(request))
      throw new Error('refuseDelegation must run after requireAuth on the same route');
    try {
      if (request.auth === undefined) throw new MissingTokenError(verifier.context);
      verifier.authorize(request.auth, noDelegation);
    } catch (err) {
      return reject(reply, err);
    }
  };

  app.decorateRequest('auth', undefined);
  app.decorate('requireAuth', authenticate(false));
  app.decorate('optionalAuth', authenticate(true));
  app.decorate('requireScope', requireScope);
  app.decorate('requireRole', requireRole);
  app.decorate('refuseDelegation', refuseDelegation);
  app.decorate('gatehouseVerifier', verifier);
  if (metadata !== undefined) {
    app.get(metadata.path, (_request, reply) => reply.headers(metadata.headers).send(metadata.document));
  }
  done();
}

/**
 * The plugin. Register it once; it is not encapsulated, so its decorators are visible app-wide. When
 * `resourceMetadata` is set it also serves the RFC 9728 document on its well-known path.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import gatehouse from '@gatehouse/fastify';
 *
 * const app = Fastify();
 * await app.register(gatehouse, { issuer: 'https://id.example.com', audience: 'https://api.example.com' });
 * app.get('/orders', { onRequest: [app.requireAuth, app.requireScope('read:orders')] }, async (request) => {
 *   return { user: request.auth?.subject };
 * });
 * ```
 */
export const gatehouse = fp(plugin, { fastify: '5.x', name: '@gatehouse/fastify' });
