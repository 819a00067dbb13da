/**
 * Drive the issuer's sign-in page the way a browser would, with plain HTTP: a cookie jar, manual
 * redirects, and a form post carrying the page's CSRF field. Resolves to the URL the issuer finally
 * redirects to (the client's redirect URI with `code`, `state` and `iss`).
 */

/** Cookie jar plus request helpers over fetch. */
class Browserish {
  readonly #cookies = new Map<string, string>();

  async request(
    url: string,
    init: RequestInit = {},
  ): Promise<{ res: Response; text: string; location?: string }> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
    const header = res.headers.get('location');
    const text = await res.text();
    return header === null ? { res, text } : { res, text, location: new URL(header, url).href };
  }
}

/** A sign-in agent: keeps its cookies (the issuer's session) across sign-ins, like a browser profile. */
export class FormAgent {
  readonly #browser = new Browserish();

  /**
   * Open `authorizationUrl`, sign in as `identifier` when the page asks, and follow redirects until one
   * leads to `redirectUri`. Throws when the flow stops elsewhere.
   */
  async signIn(
    authorizationUrl: URL,
    redirectUri: string,
    identifier: string,
    password: string,
  ): Promise<string> {
    let step = await this.#browser.request(authorizationUrl.href);
    for (let hops = 0; hops < 12; hops++) {
      if (step.location !== undefined) {
        if (step.location.startsWith(redirectUri)) return step.location;
        step = await this.#browser.request(step.location);
        continue;
      }
      const form = /<form method="post" action="([^"]+)"/.exec(step.text);
      const csrf = /name="csrf" value="([^"]*)"/.exec(step.text);
      if (
        step.res.status !== 200 ||
        form === null ||
        csrf === null ||
        !step.text.includes('name="identifier"')
      ) {
        throw new Error(`sign-in stopped with status ${step.res.status}`);
      }
      const action = new URL(form[1]!.replaceAll('&amp;', '&'), step.res.url || authorizationUrl).href;
      step = await this.#browser.request(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(action).origin },
        body: new URLSearchParams({ csrf: csrf[1]!, identifier, password }).toString(),
      });
    }
    throw new Error('too many redirects');
  }
}
