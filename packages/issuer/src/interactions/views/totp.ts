/**
 * The second sign-in step: a one-time code from an authenticator app (TOTP, RFC 6238). When the user
 * has none yet, the same page enrols one first: it shows the `otpauth://` URI as a QR code to scan
 * (inline SVG), the key in Base32 for typing, and the URI itself — once, on this page only
 * (`Cache-Control: no-store`).
 *
 * @module
 */
import { enrolmentQrSvg } from '../totp.js';
import { escapeHtml, layout } from './layout.js';

/** What the code page shows. */
export interface TotpView {
  /** Form action (already URL-safe, escaped anyway). */
  readonly action: string;
  /** Action of the cancel form. */
  readonly abortAction: string;
  readonly csrf: string;
  /** The signed proof that the password step succeeded in this interaction. */
  readonly step: string;
  /** Name of the application asking, shown to the user. */
  readonly clientName: string;
  /** Set while enrolling: the key to add to the authenticator app. */
  readonly enrolment?: { readonly uri: string; readonly key: string } | undefined;
  /** Error text. */
  readonly error?: string | undefined;
}

/** The Base32 key in groups of four, easier to type. */
const grouped = (key: string) => key.replace(/(.{4})(?=.)/g, '$1 ');

/** Render the code page (enrolment first when `view.enrolment` is set). */
export function renderTotp(view: TotpView): string {
  const error =
    view.error === undefined ? '' : `<div class="error" role="alert">${escapeHtml(view.error)}</div>`;
  const enrolment =
    view.enrolment === undefined
      ? '<p>Enter the 6-digit code from your authenticator app.</p>'
      : `<p>This application needs a second sign-in step. Scan this QR code with an authenticator app, then enter the code it shows.</p>
<p>${enrolmentQrSvg(view.enrolment.uri)}</p>
<p><strong>Or type this key into the app:</strong> <code id="totp-key">${escapeHtml(grouped(view.enrolment.key))}</code></p>
<p><strong>Or open this link in the app:</strong><br><code id="totp-uri" class="uri">${escapeHtml(view.enrolment.uri)}</code></p>`;
  return layout(
    view.enrolment === undefined ? 'Enter your code' : 'Set up your authenticator app',
    `<h1>${view.enrolment === undefined ? 'Enter your code' : 'Set up your authenticator app'}</h1>
<p class="sub">to continue to <strong>${escapeHtml(view.clientName)}</strong></p>
${error}
${enrolment}
<form method="post" action="${escapeHtml(view.action)}" autocomplete="off">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<input type="hidden" name="step" value="${escapeHtml(view.step)}">
<label for="code">One-time code</label>
<input type="text" id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code" required autofocus>
<button type="submit">Verify</button>
</form>
<form method="post" action="${escapeHtml(view.abortAction)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" class="secondary">Cancel</button>
</form>`,
  );
}
