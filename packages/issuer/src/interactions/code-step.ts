/**
 * The second sign-in step of the `urn:gatehouse:acr:mfa` level (RFC 9470 step-up): a one-time code
 * from an authenticator app (TOTP, RFC 6238), after the password. The code page enrols a factor first
 * when the user has none confirmed (a new secret on every new password step, shown only there); the
 * code form carries the password step as a signed field bound to the interaction (see totp.ts).
 *
 * Every code attempt is counted in the shared failure counters **before** the code is checked (one
 * atomic upsert), so parallel guesses are all counted: past `DEFAULTS.totp.maxFailures` in a window the
 * step answers 429 with `Retry-After`, the right code included, until the window ends; a right code
 * clears the count. A code is accepted once (`store.totpFactors.accept`). Neither the secret nor a code
 * is ever logged.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Provider } from 'oidc-provider';
import type { Logger } from 'pino';
import { DEFAULTS } from '../config/defaults.js';
import { readForm } from '../internal/http.js';
import type { Store } from '../storage/store.js';
import { duration } from './duration.js';
import {
  codeStep,
  enrolmentUri,
  newSecret,
  openSecret,
  readPasswordStep,
  sealSecret,
  signPasswordStep,
} from './totp.js';
import { renderTotp } from './views/totp.js';

/** An interaction, as oidc-provider describes it. */
type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/** Fixed messages of the code step. */
export const CODE_MESSAGES = Object.freeze({
  wrongCode: 'The code is incorrect or has already been used. Enter the current code from your app.',
  /** `{wait}` is replaced by the time left, e.g. "15 minutes". */
  tooManyCodes: 'Too many incorrect codes. Try again in {wait}.',
  factorUnavailable: 'Your authenticator app cannot be checked right now. Contact your administrator.',
});

/** What the code step needs from the interaction routes. */
export interface CodeStepDeps {
  readonly store: Store;
  readonly log: Logger;
  /** The current provider (it is rebuilt when signing keys rotate). */
  readonly provider: () => Provider;
  readonly csrfKey: Buffer;
  /** The cookie keys, newest first: TOTP secrets are sealed under keys derived from them. */
  readonly cookieKeys: readonly string[];
  /** Shown as the account's issuer in authenticator apps. */
  readonly issuerHost: string;
  /** The interaction's base path (`/interaction/<uid>`). */
  action(uid: string): string;
  csrfFor(uid: string): string;
  csrfValid(uid: string, presented: string | undefined): boolean;
  page(res: ServerResponse, status: number, html: string): void;
  fail(res: ServerResponse, status: number, error: string, description: string): void;
  clientName(clientId: unknown): Promise<string>;
  /** End the sign-in at the mfa level. */
  finishLogin(req: IncomingMessage, res: ServerResponse, details: Details, accountId: string): Promise<void>;
}

/** The account a code page is for. */
interface Account {
  readonly id: string;
  readonly username: string;
}

const now = () => Math.floor(Date.now() / 1000);
const attempts = (accountId: string) => `totp:${accountId}`;

/**
 * The code step: `show` renders the page after a password step, `submit` handles its form.
 *
 * @example
 * ```ts
 * const codeStep = createCodeStep({ store, log, csrfKey, cookieKeys, issuerHost, action, csrfFor, … });
 * if (requiredAcr(details.params) === ACR_VALUES.mfa) return codeStep.show(res, 200, details, name, user, true);
 * ```
 */
export function createCodeStep(deps: CodeStepDeps) {
  const { store, log } = deps;

  /**
   * The code page: enrolment first (a new secret when `fresh`, i.e. a password step just succeeded)
   * when the user has no confirmed factor, else the code form.
   */
  async function show(
    res: ServerResponse,
    status: number,
    details: Details,
    name: string,
    user: Account,
    fresh: boolean,
    error?: string,
  ): Promise<void> {
    let factor = await store.totpFactors.get(user.id);
    if (factor === undefined || (!factor.confirmed && fresh))
      factor = await store.totpFactors.begin(user.id, sealSecret(newSecret(), deps.cookieKeys), now());
    const secret = factor.confirmed ? undefined : openSecret(factor.secret, deps.cookieKeys);
    const action = deps.action(details.uid);
    deps.page(
      res,
      status,
      renderTotp({
        action: `${action}/totp`,
        abortAction: `${action}/abort`,
        csrf: deps.csrfFor(details.uid),
        step: signPasswordStep(deps.csrfKey, details.uid, user.id, now() + DEFAULTS.totp.stepLifetime),
        clientName: name,
        enrolment:
          secret === undefined
            ? undefined
            : { key: secret, uri: enrolmentUri(secret, user.username, deps.issuerHost) },
        error,
      }),
    );
  }

  /** `POST …/totp`: a one-time code for the account whose password step the signed field proves. */
  async function submit(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const form = await readForm(req, DEFAULTS.interactions.maxFormBytes);
    const details = await deps.provider().interactionDetails(req, res);
    const accountId =
      details.uid === uid && deps.csrfValid(uid, form.get('csrf'))
        ? readPasswordStep(deps.csrfKey, uid, form.get('step'), now())
        : undefined;
    const user = accountId === undefined ? undefined : await store.users.get(accountId);
    if (user === undefined || user.suspended || details.prompt.name !== 'login')
      return deps.fail(res, 403, 'invalid_request', 'The form has expired. Start signing in again.');
    const name = await deps.clientName(details.params.client_id);
    // Counted before the code is checked: parallel guesses cannot outrun the limit.
    const counted = await store.failures.increment(attempts(user.id), now(), DEFAULTS.totp.failureWindow);
    if (counted.count > DEFAULTS.totp.maxFailures) {
      const wait = Math.max(1, counted.endsAt - now());
      res.setHeader('retry-after', String(wait));
      const error = CODE_MESSAGES.tooManyCodes.replace('{wait}', duration(wait));
      return show(res, 429, details, name, user, false, error);
    }
    const factor = await store.totpFactors.get(user.id);
    const secret = factor === undefined ? undefined : openSecret(factor.secret, deps.cookieKeys);
    if (secret === undefined) {
      log.warn({ event: 'login.totp_unavailable', userId: user.id }, 'TOTP secret cannot be opened');
      return deps.fail(res, 503, 'temporarily_unavailable', CODE_MESSAGES.factorUnavailable);
    }
    const step = codeStep(secret, (form.get('code') ?? '').trim(), Date.now());
    if (step === undefined || !(await store.totpFactors.accept(user.id, step, now()))) {
      log.info({ event: 'login.totp_failed', userId: user.id }, 'wrong one-time code');
      return show(res, 401, details, name, user, false, CODE_MESSAGES.wrongCode);
    }
    await store.failures.reset(attempts(user.id));
    return deps.finishLogin(req, res, details, user.id);
  }

  return { show, submit };
}
