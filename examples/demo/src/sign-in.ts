/**
 * Headless sign-in: what a person's browser does between `client.signIn()` and the redirect back,
 * done with `fetch`. It opens the authorization URL, follows redirects by hand with a cookie jar, fills
 * in the issuer's sign-in form (username, password and the form's CSRF field) and posts it, and stops at
 * the first redirect to the application's redirect URI. The code in that URL is for
 * `client.handleSignInCallback()`; this module never looks at it.
 *
 * @module
 */

/** Where a sign-in went wrong. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
}

const MAX_STEPS = 12;

/** A minimal browser: cookies (name → value, one origin is enough here) and manual redirects. */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  header(): Record<string, string> {
    if (this.#cookies.size === 0) return {};
    return { cookie: [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0]!;
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }
}

/** The value of `<input … name="csrf" value="…">`. */
function hiddenField(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/**
 * Sign in as `username` and return the URL the issuer finally redirects to (the redirect URI with
 * `code`, `state` and `iss`).
 *
 * @example
 * ```ts
 * const url = await client.signIn();
 * const callback = await signInHeadlessly(url, 'http://127.0.0.1:4200/callback', 'sam', password);
 * await client.handleSignInCallback(callback);
 * ```
 */
export async function signInHeadlessly(
  authorizationUrl: URL,
  redirectUri: string,
  username: string,
  password: string,
): Promise<string> {
  const jar = new CookieJar();
  let url = authorizationUrl.href;
  let init: RequestInit = {};
  for (let step = 0; step < MAX_STEPS; step++) {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...jar.header(), ...(init.headers as Record<string, string> | undefined) },
    });
    jar.store(res);
    const location = res.headers.get('location');
    if (location !== null) {
      await res.arrayBuffer();
      const next = new URL(location, url).href;
      if (next.startsWith(redirectUri)) return next;
      url = next;
      init = {};
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    const csrf = hiddenField(html, 'csrf');
    if (action !== undefined && csrf !== undefined && html.includes('name="identifier"')) {
      // The form again after posting it: the issuer refused (it answers 401 with the form).
      if (init.method === 'POST') throw new SignInError(`the issuer refused the password of ${username}`);
      if (res.status !== 200)
        throw new SignInError(`sign-in stopped at an unexpected page (HTTP ${res.status})`);
      url = new URL(action.replaceAll('&amp;', '&'), url).href;
      init = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin },
        body: new URLSearchParams({ csrf, identifier: username, password }).toString(),
      };
      continue;
    }
    throw new SignInError(`sign-in stopped at an unexpected page (HTTP ${res.status})`);
  }
  throw new SignInError('too many redirects during sign-in');
}
