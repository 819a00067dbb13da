/**
 * Simple message pages: errors, the sign-out confirmation and the signed-out page.
 *
 * @module
 */
import { escapeHtml, layout } from './layout.js';

/** An error page. Only the OAuth error code and its fixed description are shown. */
export function renderError(error: string, description: string | undefined): string {
  return layout(
    'Something went wrong',
    `<h1>Something went wrong</h1>
<p class="error" role="alert"><code>${escapeHtml(error)}</code></p>
${description ? `<p>${escapeHtml(description)}</p>` : ''}`,
  );
}

/** The sign-out confirmation. `form` is oidc-provider's own hidden form (with its XSRF token). */
export function renderLogout(form: string, host: string): string {
  return layout(
    'Sign out',
    `<h1>Sign out</h1>
<p class="sub">Do you want to sign out from ${escapeHtml(host)}?</p>
${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm" class="secondary">No, stay signed in</button>`,
  );
}

/** Shown after a sign-out that has no redirect back to the application. */
export function renderLoggedOut(clientName: string | undefined): string {
  return layout(
    'Signed out',
    `<h1>Signed out</h1>
<p>You have signed out${clientName ? ` of ${escapeHtml(clientName)}` : ''}.</p>`,
  );
}
