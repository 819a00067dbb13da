/**
 * The few places the client touches the host environment: whether it runs in a browser page, the
 * page's `sessionStorage`, its current URL and navigation. Nothing here runs at import time.
 *
 * @module
 */

interface BrowserGlobals {
  window?: unknown;
  document?: unknown;
  location?: { href: string; assign(url: string): void };
  sessionStorage?: unknown;
}

const globals = () => globalThis as unknown as BrowserGlobals;

/**
 * Whether the code runs in a browser page (a `window` with a `document`).
 *
 * @example
 * ```ts
 * if (isBrowser()) console.log('in a page');
 * ```
 */
export function isBrowser(): boolean {
  const g = globals();
  return typeof g.window === 'object' && g.window !== null && typeof g.document === 'object';
}

/**
 * The page's `sessionStorage`, or `undefined` outside a browser (or when the browser blocks it).
 *
 * @example
 * ```ts
 * const storage = pageSessionStorage();
 * ```
 */
export function pageSessionStorage(): unknown {
  try {
    return globals().sessionStorage;
  } catch {
    // Browsers throw a SecurityError when storage is disabled.
    return undefined;
  }
}

/**
 * The page's current URL, or `undefined` outside a browser.
 *
 * @example
 * ```ts
 * const here = currentUrl(); // 'https://app.example.com/callback?code=…'
 * ```
 */
export function currentUrl(): string | undefined {
  return isBrowser() ? globals().location?.href : undefined;
}

/**
 * Send the page to `url` (`location.assign`). Returns whether it could.
 *
 * @example
 * ```ts
 * navigate(new URL('https://id.example.com/oidc/auth?…'));
 * ```
 */
export function navigate(url: URL): boolean {
  const location = globals().location;
  if (!isBrowser() || location === undefined) return false;
  location.assign(url.href);
  return true;
}
