/**
 * The consent page, shown only to third-party applications (first-party ones get consent automatically).
 *
 * @module
 */
import { escapeHtml, layout } from './layout.js';

/** What the consent page shows. */
export interface ConsentView {
  readonly action: string;
  readonly abortAction: string;
  readonly csrf: string;
  readonly clientName: string;
  /** Scopes the application asks for, grouped by audience (`openid` scopes under the issuer). */
  readonly requests: ReadonlyArray<{ readonly audience: string; readonly scopes: readonly string[] }>;
}

/** Render the consent page. */
export function renderConsent(view: ConsentView): string {
  const items = view.requests
    .filter((request) => request.scopes.length > 0)
    .map(
      (request) =>
        `<p><code>${escapeHtml(request.audience)}</code></p><ul class="scopes">${request.scopes
          .map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`)
          .join('')}</ul>`,
    )
    .join('');
  return layout(
    'Authorize access',
    `<h1>Authorize access</h1>
<p class="sub"><strong>${escapeHtml(view.clientName)}</strong> is asking for:</p>
${items || '<p>Basic access to your account.</p>'}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit">Allow</button>
</form>
<form method="post" action="${escapeHtml(view.abortAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" class="secondary">Deny</button>
</form>`,
  );
}
