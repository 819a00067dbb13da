/**
 * The integrator's backend for impersonation, on Express 5 with `@gatehouse/express`:
 *
 * - `GET /health`: no token needed.
 * - `POST /impersonations` `{ userId, reason, ticketId }`: the caller is a support engineer signed in to
 *   the support console; their access token for this backend must carry the impersonation scope and
 *   must not itself be an impersonation token. The policy decides; then the backend mints a subject
 *   token through the Management API (with its own cached M2M token), bound to the engineer as actor
 *   and to the calling application, with `context = { ticketId, reason, engineerId }`, and answers
 *   `201 { subjectToken, expiresIn }`.
 *
 * Only this backend holds Management API credentials. Every decision is logged as one JSON line of
 * ids (never a token).
 *
 * @module
 */
import { requireAuth, requireScope } from '@gatehouse/express';
import express, { type ErrorRequestHandler, type Express } from 'express';
import { cors } from './cors.ts';
import { createTokenSource, TokenRequestError } from './m2m-token.ts';
import { defaultPolicy, type ImpersonationPolicy, parseImpersonationRequest } from './policy.ts';
import { createSubjectTokenClient, ManagementApiError } from './subject-tokens.ts';

/** Where the backend writes its lines. `console` fits; so does pino or a test double. */
export interface Logger {
  info(line: string): void;
  error(line: string): void;
}

/** Options of {@link createBackend}. */
export interface BackendOptions {
  /** Base URL of the Gatehouse issuer (`http://127.0.0.1:3001`): issuer `{endpoint}/oidc`, Management API `{endpoint}/api`. */
  endpoint: string;
  /** Resource indicator of this backend: the `aud` of the engineers' access tokens. */
  audience: string;
  /** The backend's `MachineToMachine` application, with a role granting `subject-tokens:create`. */
  clientId: string;
  clientSecret: string;
  /** Scope the engineer's token must carry. Default `impersonate:users`. */
  scope?: string;
  /** Who may impersonate whom. Default {@link defaultPolicy}. */
  policy?: ImpersonationPolicy;
  /** Browser origins allowed to call (the support console). Default none. */
  corsOrigins?: readonly string[];
  /** `fetch` for the issuer: discovery, JWKS, token endpoint, Management API. Default global `fetch`. */
  fetch?: typeof fetch;
  /** Where decision lines go. Default `console`. */
  logger?: Logger;
}

/** The options' defaults. */
export const DEFAULTS = Object.freeze({
  /** The scope a support engineer's role grants on this backend's resource. */
  scope: 'impersonate:users',
  /** The Management API scope the backend's M2M application needs (and asks for, nothing more). */
  managementScope: 'subject-tokens:create',
});

/**
 * Build the backend. Each call has its own verifier (key cache) and its own M2M token cache.
 *
 * @example
 * ```ts
 * import { createBackend } from './app.ts';
 *
 * const app = createBackend({
 *   endpoint: 'http://127.0.0.1:3001',
 *   audience: 'https://support-backend.example.com',
 *   clientId: 'support-backend',
 *   clientSecret: process.env.CLIENT_SECRET!,
 * });
 * app.listen(4100);
 * ```
 */
export function createBackend(options: BackendOptions): Express {
  const { audience, clientId, clientSecret, corsOrigins = [], logger = console } = options;
  const endpoint = options.endpoint.replace(/\/+$/, '');
  const scope = options.scope ?? DEFAULTS.scope;
  const policy = options.policy ?? defaultPolicy();
  const doFetch = options.fetch;
  const log = (event: string, fields: Record<string, unknown>) =>
    logger.info(JSON.stringify({ event, time: new Date().toISOString(), ...fields }));

  const tokens = createTokenSource({
    tokenEndpoint: `${endpoint}/oidc/token`,
    clientId,
    clientSecret,
    resource: `${endpoint}/api`,
    scope: DEFAULTS.managementScope,
    ...(doFetch === undefined ? {} : { fetch: doFetch }),
    onToken: ({ expiresIn, scope: granted }) => log('m2m_token.obtained', { expiresIn, scope: granted }),
  });
  const subjectTokens = createSubjectTokenClient({
    managementApi: `${endpoint}/api`,
    tokens,
    ...(doFetch === undefined ? {} : { fetch: doFetch }),
  });

  const app = express();
  app.disable('x-powered-by');
  if (corsOrigins.length > 0) app.use(cors(corsOrigins));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.post(
    '/impersonations',
    // An impersonation token may not start another impersonation: the engineer acts as themselves.
    requireAuth({
      issuer: `${endpoint}/oidc`,
      audience,
      strict: true,
      allowDelegation: false,
      // What the API's callers are never told (a wrong issuer, tokens for another audience), in the log.
      onWarning: (warning) => log('gatehouse.warning', { code: warning.code, message: warning.message }),
      ...(doFetch === undefined ? {} : { fetch: doFetch }),
    }),
    requireScope(scope),
    express.json({ limit: '4kb' }),
    async (req, res) => {
      const auth = req.auth!;
      const engineerId = auth.subject;
      if (engineerId === undefined || engineerId === auth.clientId) {
        // A machine-to-machine token (RFC 9068: sub = client_id) has no user behind it: nobody to
        // record as the actor. Gatehouse never lets a client id look like a user id.
        res.status(403).json({ error: 'access_denied', error_description: 'a signed-in user is required' });
        return;
      }
      const input = parseImpersonationRequest(req.body);
      if (!input.ok) {
        res.status(400).json({ error: 'invalid_request', error_description: input.error });
        return;
      }
      const { userId, reason, ticketId } = input.value;
      const decision = await policy({ engineerId, userId, reason, ticketId });
      if (!decision.allow) {
        log('impersonation.refused', { engineerId, userId, ticketId, why: decision.reason });
        res.status(403).json({ error: 'access_denied', error_description: decision.reason });
        return;
      }
      const minted = await subjectTokens.create({
        userId,
        context: { ticketId, reason, engineerId },
        // Redeemable only together with this engineer's own access token, by the application that asked.
        actorId: engineerId,
        ...(auth.clientId === undefined ? {} : { applicationId: auth.clientId }),
      });
      log('impersonation.granted', {
        engineerId,
        userId,
        ticketId,
        applicationId: auth.clientId ?? null,
        expiresIn: minted.expiresIn,
      });
      res.status(201).set('cache-control', 'no-store').json(minted);
    },
  );

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });

  const onError: ErrorRequestHandler = (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof ManagementApiError && err.status === 404) {
      res.status(404).json({ error: 'unknown_user', error_description: 'no such user' });
      return;
    }
    if (err instanceof ManagementApiError && err.code === 'user_suspended') {
      res.status(409).json({ error: 'user_suspended', error_description: 'the user is suspended' });
      return;
    }
    if (err instanceof ManagementApiError || err instanceof TokenRequestError) {
      logger.error(JSON.stringify({ event: 'issuer.failed', message: err.message }));
      res.status(502).json({ error: 'issuer_error', error_description: 'the issuer refused or failed' });
      return;
    }
    const status =
      typeof err?.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 500;
    if (status === 500) {
      logger.error(JSON.stringify({ event: 'error', message: err instanceof Error ? err.message : 'error' }));
      res.status(500).json({ error: 'server_error' });
      return;
    }
    const description =
      err?.type === 'entity.parse.failed' ? 'body is not valid JSON' : 'the request body was refused';
    res.status(status).json({ error: 'invalid_request', error_description: description });
  };
  app.use(onError);

  return app;
}
