/**
 * The Management API under `{baseUrl}/api`: one table of routes (method, path, required scopes,
 * schemas, handler) drives dispatch, validation and the OpenAPI document.
 *
 * Every request except `GET /api/openapi.json` needs `Authorization: Bearer <token>` verified by
 * `@gatehouse/core` (issuer `{baseUrl}/oidc`, audience `{baseUrl}/api`, RFC 9068 strict profile). A
 * token carrying `act` is refused (403); it must be a machine-to-machine token (`sub` = `client_id` of
 * an M2M application) or a signed-in admin console user's token (see `console/access.ts`), else 403;
 * and it must hold `all` or one of the route's scopes (else 403 `insufficient_scope`) — in the token
 * and, read again on every request, through the caller's roles now (`authority.ts`; else 403
 * `access_denied`, reason `scope_not_held`). Authentication happens before the body is read.
 *
 * A route that changes something declares it (`change`: its audit event type and what it acts on) and
 * runs in one transaction with the scope ceiling and its audit event (`change.ts`, `ceiling.ts`).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthInfo, isAuthError, type Verifier } from '@gatehouse/core';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { DEFAULTS } from '../config/defaults.js';
import {
  ConflictError,
  ManagementError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  StoreConflictError,
  ValidationError,
  type ValidationIssue,
} from '../errors.js';
import type { AuditTrail } from '../internal/audit.js';
import { readJson, sendEmpty, sendJson } from '../internal/http.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { ApplicationRecord, NewAuditEvent, SigningKeyRecord, Store } from '../storage/store.js';
import { setRoute } from '../tracing/http.js';
import { authorityLoader } from './authority.js';
import { type ChangeDef, type ChangeScope, requireRouteScope, runChange } from './change.js';
import type { SharedSchemas } from './primitives.js';

/** HTTP methods used by the Management API. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a handler receives: its input, the caller, and the stores to use — for a change, those of its
 * transaction (see `change.ts`).
 */
export interface RouteContext<B, Q, P = undefined> extends ChangeScope {
  readonly params: Readonly<Record<string, string>>;
  readonly body: B;
  readonly query: Q;
  /** The verified caller. */
  readonly auth: AuthInfo;
  /** What the route's `prepare` made before the change's transaction began. */
  readonly prepared: P;
}

/** What a handler returns. */
export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One route. `path` uses OpenAPI templates: `/users/{id}`. */
export interface RouteDef {
  readonly method: Method;
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** Any one of these scopes (or `all`) is enough. */
  readonly scopes: readonly string[];
  /**
   * Set on every route that changes something: its audit event and what it acts on (the scope
   * ceiling). The router runs such a route with {@link runChange}.
   */
  readonly change?: ChangeDef | undefined;
  /** Slow work done before a change's transaction begins (password hashing); its result is `prepared`. */
  prepare?(input: {
    readonly body: unknown;
    readonly params: Readonly<Record<string, string>>;
  }): Promise<unknown>;
  readonly body?: z.ZodType | undefined;
  readonly query?: z.ZodType | undefined;
  /** Success status and schema, for the OpenAPI document. */
  readonly success: {
    readonly status: number;
    readonly schema?: z.ZodType | undefined;
    readonly description: string;
  };
  handler(ctx: RouteContext<unknown, unknown, unknown>): Promise<RouteResult>;
}

/**
 * Declare a route with typed body and query.
 *
 * @example
 * ```ts
 * defineRoute({
 *   method: 'GET', path: '/users/{id}', summary: 'Get a user', tag: 'Users', scopes: ['users:read'],
 *   success: { status: 200, schema: schemas.user, description: 'The user' },
 *   handler: async ({ params }) => ({ status: 200, body: await load(params.id) }),
 * });
 * ```
 */
export function defineRoute<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P = undefined,
>(
  def: Omit<RouteDef, 'handler' | 'body' | 'query' | 'prepare'> & {
    body?: B;
    query?: Q;
    prepare?(input: {
      readonly body: B extends z.ZodType ? z.output<B> : undefined;
      readonly params: Readonly<Record<string, string>>;
    }): Promise<P>;
    handler(
      ctx: RouteContext<
        B extends z.ZodType ? z.output<B> : undefined,
        Q extends z.ZodType ? z.output<Q> : undefined,
        P
      >,
    ): Promise<RouteResult>;
  },
): RouteDef {
  return def as RouteDef;
}

/** Everything route handlers may use. */
export interface ManagementDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly log: Logger;
  /** The registries and the schemas several resources share; each resource adds its own. */
  readonly schemas: SharedSchemas;
  /** Current time in epoch seconds (tests may fake it). */
  readonly now: () => number;
  /** Rotate the signing key and reload the provider; `event` makes the audit event recorded with it. */
  readonly rotateKeys: (event?: (key: SigningKeyRecord) => NewAuditEvent) => Promise<SigningKeyRecord>;
  /** oidc-provider's own client-metadata validation of an application; throws a `ValidationError`. */
  readonly validateApplication: (app: ApplicationRecord) => Promise<void>;
  /** The audit trail. */
  readonly audit: AuditTrail;
}

/** Maximum length of a path parameter; longer ids cannot exist (catalogue B44). */
const MAX_PARAM_LENGTH = DEFAULTS.management.maxParamLength;

interface CompiledRoute {
  readonly def: RouteDef;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(def: RouteDef): CompiledRoute {
  const names: string[] = [];
  const source = def.path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\\?\{(\w+)\\?\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
  return { def, pattern: new RegExp(`^${source}$`), names };
}

/** Convert schema issues into {@link ValidationIssue}s without echoing values. */
export function toIssues(where: string, error: z.ZodError): ValidationIssue[] {
  return error.issues.slice(0, 20).map((issue) => {
    const path = [where, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.slice(0, 5).map((key) => JSON.stringify(key.slice(0, 64)));
      return { path, message: `unknown field${issue.keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` };
    }
    return { path, message: issue.message };
  });
}

function parse<T>(schema: z.ZodType | undefined, value: unknown, where: string): T {
  if (schema === undefined) {
    if (
      value !== undefined &&
      !(typeof value === 'object' && value !== null && Object.keys(value).length === 0)
    ) {
      throw new ValidationError(`This route takes no ${where}`);
    }
    return undefined as T;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(`Invalid ${where}`, toIssues(where, result.error));
  return result.data as T;
}

/** The options of {@link createManagementRouter}. */
export interface ManagementRouterOptions {
  readonly deps: ManagementDeps;
  readonly routes: readonly RouteDef[];
  /** The current verifier (rebuilt when keys rotate). */
  readonly verifier: () => Verifier;
  /** The OpenAPI document, served at `/api/openapi.json`. */
  readonly openapi: () => unknown;
  /** Counts a request of an authenticated client; throws a `RateLimitedError` over its limit. */
  readonly limit?: ((auth: AuthInfo) => Promise<void>) | undefined;
}

/**
 * Build the Management API handler. It answers paths under `/api` (base path removed) and resolves to
 * `false` for anything else.
 */
export function createManagementRouter(options: ManagementRouterOptions) {
  const { deps } = options;
  const compiled = options.routes.map(compile);
  const authorityOf = authorityLoader(deps.config);

  /** The token, then its principal (403 unless M2M or console user), then the route's scopes in it and in the roles now. */
  async function authenticate(req: IncomingMessage, route: RouteDef) {
    const verifier = options.verifier();
    const info = await verifier.authenticate(req, { allowDelegation: false });
    const authority = await authorityOf(deps.store, info);
    verifier.authorize(info, { scopes: ['all', ...route.scopes], scopeMode: 'any' });
    requireRouteScope(authority, route.scopes);
    const requireSignInWithin = (maxAge: number) => verifier.authorize(info, { maxAge });
    return { info, authority, requireSignInWithin };
  }

  /** Run the handler: a change through {@link runChange}, a read on the store as it is. */
  async function handle(
    route: CompiledRoute,
    input: { params: Record<string, string>; body: unknown; query: unknown },
    { info: auth, authority, requireSignInWithin }: Awaited<ReturnType<typeof authenticate>>,
  ): Promise<RouteResult> {
    const { def } = route;
    if (def.change === undefined) {
      return def.handler({
        ...input,
        auth,
        authority,
        store: deps.store,
        prepared: undefined,
        describe: () => {},
        takeEvent: () => {
          throw new Error(`${def.method} ${def.path} declares no change`);
        },
      });
    }
    const prepared = await def.prepare?.({ body: input.body, params: input.params });
    const request = {
      ...input,
      method: def.method,
      path: def.path,
      scopes: def.scopes,
      change: def.change,
      auth,
      requireSignInWithin,
    };
    return runChange({ ...deps, authorityOf }, request, (scope) =>
      def.handler({ ...input, ...scope, auth, prepared }),
    );
  }

  async function run(
    req: IncomingMessage,
    res: ServerResponse,
    route: CompiledRoute,
    match: RegExpExecArray,
    url: URL,
  ) {
    const caller = await authenticate(req, route.def);
    await options.limit?.(caller.info);
    const params: Record<string, string> = {};
    for (const [index, name] of route.names.entries()) {
      let value: string;
      try {
        value = decodeURIComponent(match[index + 1]!);
      } catch {
        throw new ValidationError('Malformed path parameter', [
          { path: `params.${name}`, message: 'is not valid percent-encoding' },
        ]);
      }
      if (value.length > MAX_PARAM_LENGTH || value.includes('\0')) throw new NotFoundError('Not found');
      params[name] = value;
    }
    const rawQuery: Record<string, string> = {};
    for (const [key, value] of url.searchParams) {
      if (key in rawQuery)
        throw new ValidationError('Invalid query', [
          { path: `query.${key.slice(0, 64)}`, message: 'is repeated' },
        ]);
      rawQuery[key] = value;
    }
    const query = parse(route.def.query, rawQuery, 'query');
    const rawBody =
      route.def.body === undefined
        ? undefined
        : await readJson(req, deps.config.http.maxBodyBytes, deps.config.http.maxJsonDepth);
    const body = route.def.body === undefined ? undefined : parse(route.def.body, rawBody, 'body');
    const result = await handle(route, { params, body, query }, caller);
    if (result.body === undefined) sendEmpty(res, result.status, { ...result.headers });
    else sendJson(res, result.status, result.body, { ...result.headers });
  }

  function sendError(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (isAuthError(err)) {
      sendJson(
        res,
        err.status,
        { code: err.code ?? 'unauthorized', message: err.description },
        { ...err.headers },
      );
      return;
    }
    const error =
      err instanceof StoreConflictError ? new ConflictError(`${err.field} is already taken`) : err;
    if (error instanceof ManagementError) {
      const headers: Record<string, string> = {};
      if (error instanceof MethodNotAllowedError) headers.allow = error.allow.join(', ');
      if (error instanceof RateLimitedError) headers['retry-after'] = String(error.retryAfter);
      if (error.status === 413) headers.connection = 'close';
      sendJson(res, error.status, error.toJSON(), headers);
      return;
    }
    deps.log.error(
      { event: 'management.error', err: { type: (err as Error)?.name, message: (err as Error)?.message } },
      'management error',
    );
    sendJson(res, 500, { code: 'internal_error', message: 'Internal error' });
  }

  /** Handle `path` (base path removed) if it is under `/api`. */
  return async function handleManagement(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    url: URL,
  ): Promise<boolean> {
    if (path !== '/api' && !path.startsWith('/api/')) return false;
    const sub = path.slice('/api'.length) || '/';
    try {
      if (sub === '/openapi.json') {
        if (req.method !== 'GET' && req.method !== 'HEAD') throw new MethodNotAllowedError(['GET', 'HEAD']);
        setRoute(req, `${deps.config.basePath}/api/openapi.json`);
        sendJson(res, 200, options.openapi(), { 'cache-control': 'public, max-age=300' });
        return true;
      }
      const matching = compiled
        .map((route) => [route, route.pattern.exec(sub)] as const)
        .filter(([, match]) => match !== null);
      if (matching.length === 0) throw new NotFoundError('Not found');
      const found = matching.find(([route]) => route.def.method === req.method);
      if (found === undefined) throw new MethodNotAllowedError(matching.map(([route]) => route.def.method));
      setRoute(req, `${deps.config.basePath}/api${found[0].def.path}`);
      await run(req, res, found[0], found[1]!, url);
    } catch (err) {
      sendError(res, err);
    }
    return true;
  };
}

/** ISO 8601 from epoch seconds. */
export const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

/** ISO 8601 or `null`. */
export const isoOrNull = (seconds: number | null): string | null => (seconds === null ? null : iso(seconds));

/** Throw a 404 unless `value` is defined. */
export function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new NotFoundError(`${what} not found`);
  return value;
}
