/**
 * Page layout and HTML escaping for the server-rendered pages. Every dynamic value goes through
 * {@link escapeHtml}; templates are plain functions, no engine.
 *
 * @module
 */

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escape a value for HTML text and double- or single-quoted attributes. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (char) => ENTITIES[char]!);
}

/** Content-Security-Policy of every page: no scripts at all, inline styles only, not framable. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/** Response headers of every rendered page. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
});

const STYLE = `
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;color:#1f2328;margin:0}
main{max-width:380px;margin:8vh auto;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15);padding:32px}
h1{font-size:1.4rem;margin:0 0 8px}p.sub{color:#57606a;margin:0 0 24px}
label{display:block;font-weight:600;margin:16px 0 6px}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:10px;border:1px solid #d0d7de;border-radius:6px;font-size:1rem}
button{margin-top:24px;width:100%;padding:10px;border:0;border-radius:6px;font-size:1rem;cursor:pointer;background:#1f6feb;color:#fff}
button.secondary{background:#eaeef2;color:#1f2328;margin-top:8px}
.error{background:#ffebe9;border:1px solid #ff818266;color:#82071e;padding:10px;border-radius:6px;margin-bottom:8px}
ul.scopes{padding-left:20px}code{font-size:.9em}code.uri{word-break:break-all}`;

/** Wrap a page body. `title` is escaped; `body` must already be safe HTML. */
export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
