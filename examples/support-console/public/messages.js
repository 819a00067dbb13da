// What the support console says when something goes wrong, as sentences a person can act on. Pure
// functions of @gatehouse/client's errors (no DOM), so Node tests run them too.

/** Sentences for the OAuth error codes of a sign-in redirect or a token request (RFC 6749, OIDC Core). */
const OAUTH_SENTENCES = {
  access_denied: 'The sign-in was not allowed.',
  login_required: 'You need to sign in again.',
  consent_required: 'The console needs your consent: sign in again.',
  interaction_required: 'The issuer needs you to sign in again.',
  account_selection_required: 'Choose an account: sign in again.',
  invalid_grant: 'Your session has ended: sign in again.',
  invalid_scope: 'The issuer refused the permissions the console asks for.',
  invalid_target: 'The issuer does not know one of the APIs the console uses.',
  invalid_client: 'The issuer does not know the console as an application.',
  unauthorized_client: 'The console is not allowed to do this at the issuer.',
  invalid_request: 'The issuer refused the request.',
  server_error: 'The issuer had a problem: try again in a moment.',
  temporarily_unavailable: 'The issuer is busy: try again in a moment.',
};

/** Sentences for @gatehouse/client's reasons that are not OAuth answers. */
const REASON_SENTENCES = {
  network: 'The issuer cannot be reached: check that it is running, then try again.',
  state_mismatch: 'This sign-in link is stale or was opened twice: sign in again.',
  no_pending_sign_in: 'This sign-in link is stale or was opened twice: sign in again.',
  invalid_callback: 'The issuer sent the browser back without an answer: sign in again.',
  invalid_response: 'The issuer answered something unexpected: try again.',
  not_signed_in: 'You are not signed in.',
};

const sentence = (text) => {
  const trimmed = String(text).trim();
  if (trimmed === '') return '';
  const capital = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
};

/**
 * A readable sentence for an error of @gatehouse/client (or any error): the OAuth code in words,
 * followed by the issuer's `error_description` when it adds something. A cancelled sign-in (the issuer
 * answers `access_denied` with "cancelled" in its description) is "The sign-in was cancelled."
 *
 * @param {{ reason?: string, error?: string, errorDescription?: string, message?: string }} err
 * @returns {string}
 */
export function describeError(err) {
  const code = err?.error;
  const description = typeof err?.errorDescription === 'string' ? err.errorDescription : '';
  if (code === 'access_denied' && /cancel/i.test(description)) return 'The sign-in was cancelled.';
  // The client's own reasons first (a stale callback is "invalid_request" too), then the OAuth code.
  const known = REASON_SENTENCES[err?.reason] ?? OAUTH_SENTENCES[code];
  if (known !== undefined) return description === '' ? known : `${known} ${sentence(description)}`;
  if (description !== '') return `Sign-in failed: ${sentence(description)}`;
  return `Sign-in failed: ${sentence(err?.message ?? code ?? 'unknown error')}`;
}

/**
 * Whether the scopes of an access token (its space-separated `scope` claim) include `scope`.
 *
 * @param {{ scope?: unknown }} claims
 * @param {string} scope
 */
export function hasScope(claims, scope) {
  return typeof claims?.scope === 'string' && claims.scope.split(' ').includes(scope);
}
