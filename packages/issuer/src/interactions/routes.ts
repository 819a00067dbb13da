/**
 * The `/interaction/:uid` routes that oidc-provider sends the browser to: sign-in (username or email
 * and password) and consent (automatic for first-party applications).
 *
 * CSRF: the interaction is bound to oidc-provider's `SameSite=Lax`, HTTP-only interaction cookie;
 * every POST also carries an HMAC of the interaction id, and a cross-site `Origin` or
 * `Sec-Fetch-Site` is refused. Messages never reveal whether an account exists: an unknown account
 * and a wrong password read the same and take the same time; suspension is only reported after the
 * correct password.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { OIDC_SCOPES } from '../config/constants.js';
import { DEFAULTS } from '../config/defaults.js';
import { readForm, sendHtml } from '../internal/http.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Protection } from '../protection/protection.js';
import type { Store } from '../storage/store.js';
import { traceSignIn } from '../tracing/sign-in.js';
import { createCodeStep } from './code-step.js';
import { duration } from './duration.js';
import { ACR_VALUES, requiredAcr } from './step-up.js';
import { renderConsent } from './views/consent.js';
import { PAGE_HEADERS } from './views/layout.js';
import { renderLogin } from './views/login.js';
import { renderError } from './views/message.js';

/** Fixed sign-in messages. */
export const LOGIN_MESSAGES = Object.freeze({
  invalid: 'The username, email or password is incorrect.',
  suspended: 'This account is suspended. Contact your administrator.',
  missing: 'Enter your username or email and your password.',
  /**
   * `{wait}` is replaced by the time left, e.g. "15 minutes". Only a client address is ever locked (out
   * of one account, or all), so the message says where the failures came from: a user who shares the
   * address (an office, a carrier NAT) learns why, and that another network is not locked.
   */
  locked: 'Too many failed sign-in attempts from your network. Try again in {wait}.',
  busy: 'Too many sign-in attempts are being processed right now. Try again in a moment.',
});

/** What the interaction routes need. */
export interface InteractionDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly log: Logger;
  /** The current provider (it is rebuilt when signing keys rotate). */
  readonly provider: () => Provider;
  /** Key for the CSRF HMAC. */
  readonly csrfKey: Buffer;
  /** Client addresses and sign-in throttling. */
  readonly protection: Pick<Protection, 'address' | 'signIn'>;
  /** The cookie keys, newest first: TOTP secrets are sealed under keys derived from them. */
  readonly cookieKeys: readonly string[];
}

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * Build the interaction request handler. It answers paths under `/interaction/` (relative to the base
 * path) and resolves to `false` for anything else.
 */
export function createInteractionRoutes(deps: InteractionDeps) {
  const { config, store, log } = deps;
  const origin = new URL(config.baseUrl).origin;
  const base = `${config.basePath}/interaction`;

  const csrfFor = (uid: string) =>
    createHmac('sha256', deps.csrfKey).update(`interaction:${uid}`).digest('base64url');
  const csrfValid = (uid: string, presented: string | undefined) => {
    const expected = Buffer.from(csrfFor(uid));
    const actual = Buffer.from(presented ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  const sameOrigin = (req: IncomingMessage) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
    const from = req.headers.origin;
    return from === undefined || from === origin;
  };

  const page = (res: ServerResponse, status: number, html: string) =>
    sendHtml(res, status, html, PAGE_HEADERS);
  const fail = (res: ServerResponse, status: number, error: string, description: string) =>
    page(res, status, renderError(error, description));

  async function clientName(clientId: unknown): Promise<string> {
    const app = typeof clientId === 'string' ? await store.applications.get(clientId) : undefined;
    return app?.name ?? 'the application';
  }

  function loginView(details: Details, name: string, extra: { identifier?: string; error?: string } = {}) {
    return renderLogin({
      action: `${base}/${details.uid}/login`,
      abortAction: `${base}/${details.uid}/abort`,
      csrf: csrfFor(details.uid),
      clientName: name,
      ...extra,
    });
  }

  /** Create or extend the grant: OpenID scopes as asked, resource scopes as the user's roles allow. */
  async function grantFor(provider: Provider, details: Details, accountId: string): Promise<string> {
    const { params } = details;
    const grant =
      (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId, clientId: String(params.client_id) });
    const requested = String(params.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const oidc = requested.filter((scope) => OIDC_SCOPES.has(scope));
    if (oidc.length > 0) grant.addOIDCScope(oidc);
    const missingClaims = (details.prompt.details as { missingOIDCClaims?: string[] }).missingOIDCClaims;
    if (Array.isArray(missingClaims) && missingClaims.length > 0) grant.addOIDCClaims(missingClaims);
    const others = requested.filter((scope) => !OIDC_SCOPES.has(scope));
    const resources =
      params.resource === undefined ? [] : ([] as unknown[]).concat(params.resource).map(String);
    for (const indicator of resources) {
      const allowed = new Set(await store.roles.grantedScopes({ userId: accountId }, indicator));
      const granted = others.filter((scope) => allowed.has(scope));
      const refused = others.filter((scope) => !allowed.has(scope));
      if (granted.length > 0) grant.addResourceScope(indicator, granted);
      if (refused.length > 0) grant.rejectResourceScope(indicator, refused);
    }
    return grant.save();
  }

  /** End the sign-in at level `acr` (RFC 9470): a first-party application's consent is given at once. */
  async function finishLogin(
    req: IncomingMessage,
    res: ServerResponse,
    details: Details,
    accountId: string,
    acr: string,
  ): Promise<void> {
    const provider = deps.provider();
    const amr = acr === ACR_VALUES.mfa ? ['pwd', 'otp'] : ['pwd'];
    log.info({ event: 'login.success', userId: accountId, acr }, 'signed in');
    const result: Parameters<Provider['interactionFinished']>[2] = { login: { accountId, acr, amr } };
    if (await isFirstParty(details.params.client_id)) {
      result.consent = { grantId: await grantFor(provider, details, accountId) };
    }
    return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  }

  async function isFirstParty(clientId: unknown): Promise<boolean> {
    const app = typeof clientId === 'string' ? await store.applications.get(clientId) : undefined;
    return app?.firstParty === true;
  }

  async function show(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid)
      return fail(res, 400, 'invalid_request', 'This sign-in link does not match your session.');
    const name = await clientName(details.params.client_id);
    if (details.prompt.name === 'login') return page(res, 200, loginView(details, name));
    if (details.prompt.name === 'consent') {
      const accountId = details.session?.accountId;
      if (accountId === undefined) return page(res, 200, loginView(details, name));
      if (await isFirstParty(details.params.client_id)) {
        const grantId = await grantFor(provider, details, accountId);
        return provider.interactionFinished(
          req,
          res,
          { consent: { grantId } },
          { mergeWithLastSubmission: true },
        );
      }
      const requested = String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const resources =
        details.params.resource === undefined
          ? []
          : ([] as unknown[]).concat(details.params.resource).map(String);
      return page(
        res,
        200,
        renderConsent({
          action: `${base}/${uid}/consent`,
          abortAction: `${base}/${uid}/abort`,
          csrf: csrfFor(uid),
          clientName: name,
          requests: [
            { audience: config.issuer, scopes: requested.filter((scope) => OIDC_SCOPES.has(scope)) },
            ...resources.map((audience) => ({
              audience,
              scopes: requested.filter((scope) => !OIDC_SCOPES.has(scope)),
            })),
          ],
        }),
      );
    }
    return fail(res, 400, 'invalid_request', 'Unsupported interaction.');
  }

  async function login(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const provider = deps.provider();
    const form = await readForm(req, DEFAULTS.interactions.maxFormBytes);
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid || !csrfValid(uid, form.get('csrf'))) {
      return fail(res, 403, 'invalid_request', 'The form has expired. Start signing in again.');
    }
    const name = await clientName(details.params.client_id);
    const identifier = (form.get('identifier') ?? '').trim();
    const password = form.get('password') ?? '';
    if (
      identifier.length === 0 ||
      password.length === 0 ||
      identifier.length > 320 ||
      password.length > 1_024
    ) {
      return page(
        res,
        400,
        loginView(details, name, { identifier: identifier.slice(0, 320), error: LOGIN_MESSAGES.missing }),
      );
    }
    const outcome = await traceSignIn(() =>
      deps.protection.signIn.authenticate({
        identifier,
        password,
        address: deps.protection.address(req),
        applicationId: typeof details.params.client_id === 'string' ? details.params.client_id : undefined,
      }),
    );
    if (outcome.kind === 'locked' || outcome.kind === 'busy') {
      res.setHeader('retry-after', String(outcome.retryAfter));
      const error =
        outcome.kind === 'busy'
          ? LOGIN_MESSAGES.busy
          : LOGIN_MESSAGES.locked.replace('{wait}', duration(outcome.retryAfter));
      return page(res, outcome.kind === 'busy' ? 503 : 429, loginView(details, name, { identifier, error }));
    }
    if (outcome.kind !== 'success') {
      return page(res, 401, loginView(details, name, { identifier, error: LOGIN_MESSAGES[outcome.kind] }));
    }
    const user = outcome.user;
    if (requiredAcr(details.params) === ACR_VALUES.mfa || (await consoleFactor(details, user.id)))
      return codeStep.show(res, 200, details, name, user, true);
    return finishLogin(req, res, details, user.id, ACR_VALUES.password);
  }

  /**
   * Whether a sign-in to the admin console must also take the user's TOTP code: always once they have
   * enrolled one, so an administrator's second factor guards every console sign-in — the
   * re-authentication for dangerous changes included (catalogue F20) — not only those that ask for it.
   */
  async function consoleFactor(
    details: { params: Record<string, unknown> },
    userId: string,
  ): Promise<boolean> {
    if (details.params.client_id !== DEFAULTS.console.clientId) return false;
    return (await store.totpFactors.get(userId))?.confirmed === true;
  }

  async function consent(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const provider = deps.provider();
    const form = await readForm(req, DEFAULTS.interactions.maxFormBytes);
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid || !csrfValid(uid, form.get('csrf')) || details.prompt.name !== 'consent') {
      return fail(res, 403, 'invalid_request', 'The form has expired. Start signing in again.');
    }
    const accountId = details.session?.accountId;
    if (accountId === undefined) return fail(res, 400, 'invalid_request', 'Sign in first.');
    const grantId = await grantFor(provider, details, accountId);
    return provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  }

  async function abort(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const provider = deps.provider();
    const form = await readForm(req, DEFAULTS.interactions.maxFormBytes);
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid || !csrfValid(uid, form.get('csrf'))) {
      return fail(res, 403, 'invalid_request', 'The form has expired. Start signing in again.');
    }
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'The user cancelled the request' },
      { mergeWithLastSubmission: false },
    );
  }

  const codeStep = createCodeStep({
    store,
    log,
    provider: deps.provider,
    csrfKey: deps.csrfKey,
    cookieKeys: deps.cookieKeys,
    issuerHost: new URL(config.baseUrl).host,
    action: (uid) => `${base}/${uid}`,
    csrfFor,
    csrfValid,
    page,
    fail,
    clientName,
    finishLogin: (req, res, details, accountId) => finishLogin(req, res, details, accountId, ACR_VALUES.mfa),
  });

  /** Handle `path` (base path already removed) if it is an interaction route. */
  return async function handleInteraction(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<boolean> {
    const match = /^\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(login|consent|abort|totp))?$/.exec(path);
    if (match === null) return false;
    const [, uid, action] = match as unknown as [string, string, string | undefined];
    try {
      if (action === undefined) {
        if (req.method === 'GET' || req.method === 'HEAD') await show(req, res, uid);
        else fail(res, 405, 'invalid_request', 'Method not allowed.');
        return true;
      }
      if (req.method !== 'POST') fail(res, 405, 'invalid_request', 'Method not allowed.');
      else if (!sameOrigin(req)) fail(res, 403, 'invalid_request', 'Cross-site form submission refused.');
      else if (action === 'login') await login(req, res, uid);
      else if (action === 'consent') await consent(req, res, uid);
      else if (action === 'totp') await codeStep.submit(req, res, uid);
      else await abort(req, res, uid);
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'SessionNotFound') {
        fail(
          res,
          400,
          'invalid_request',
          'Your sign-in session has expired or was not found. Start again from the application.',
        );
      } else if ((err as { status?: number }).status === 413 || (err as { status?: number }).status === 415) {
        fail(res, (err as { status: number }).status, 'invalid_request', 'The form could not be read.');
      } else {
        log.error(
          { event: 'interaction.error', err: { type: name, message: (err as Error).message } },
          'interaction failed',
        );
        if (!res.headersSent) fail(res, 500, 'server_error', 'Something went wrong. Try again.');
      }
    }
    return true;
  };
}
