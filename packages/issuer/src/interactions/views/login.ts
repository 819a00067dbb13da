/**
 * The sign-in page: username or email, and password.
 *
 * @module
 */
import { escapeHtml, layout } from './layout.js';

/** What the sign-in page shows. */
export interface LoginView {
  /** Form action (already URL-safe, escaped anyway). */
  readonly action: string;
  /** Action of the cancel form. */
  readonly abortAction: string;
  readonly csrf: string;
  /** Name of the application asking, shown to the user. */
  readonly clientName: string;
  /** Login identifier to pre-fill after a failed attempt. */
  readonly identifier?: string | undefined;
  /** Error text; never says whether the account exists. */
  readonly error?: string | undefined;
}

/** Render the sign-in page. */
export function renderLogin(view: LoginView): string {
  const error =
    view.error === undefined ? '' : `<div class="error" role="alert">${escapeHtml(view.error)}</div>`;
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p class="sub">to continue to <strong>${escapeHtml(view.clientName)}</strong></p>
${error}
<form method="post" action="${escapeHtml(view.action)}" autocomplete="on">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="identifier">Username or email</label>
<input type="text" id="identifier" name="identifier" value="${escapeHtml(view.identifier ?? '')}" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${escapeHtml(view.abortAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" class="secondary">Cancel</button>
</form>`,
  );
}
