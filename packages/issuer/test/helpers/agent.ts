/**
 * A minimal browser stand-in for protocol tests: a cookie jar and manual redirects over fetch. The
 * real-browser test (Chromium) covers the same pages end to end; this one keeps the many security
 * cases fast.
 */
import { createHash, randomBytes } from 'node:crypto';

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** One response, with its body read. */
export interface AgentResponse {
  readonly status: number;
  readonly url: string;
  readonly location: string | undefined;
  readonly headers: Headers;
  readonly text: string;
}

/** Cookie jar plus request helpers. */
export class Agent {
  readonly cookies = new Map<string, string>();
  /** Extra headers on every request (e.g. a forged Origin). */
  headers: Record<string, string> = {};

  #store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(url: string, init: RequestInit = {}): Promise<AgentResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...this.headers,
        ...(init.headers as Record<string, string>),
      },
    });
    this.#store(res);
    const location = res.headers.get('location') ?? undefined;
    return {
      status: res.status,
      url,
      location: location === undefined ? undefined : new URL(location, url).href,
      headers: res.headers,
      text: await res.text(),
    };
  }

  get(url: string): Promise<AgentResponse> {
    return this.request(url);
  }

  post(
    url: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<AgentResponse> {
    return this.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(url).origin,
        ...headers,
      },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** Follow redirects until a response is not a redirect or its target starts with `stopAt`. */
  async follow(start: AgentResponse, stopAt: string, limit = 10): Promise<AgentResponse> {
    let res = start;
    for (let i = 0; i < limit && res.location !== undefined && !res.location.startsWith(stopAt); i++)
      res = await this.get(res.location);
    return res;
  }
}

/** Read a hidden field of a rendered form. */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (match === null) throw new Error(`no ${name} field in page`);
  return match[1]!;
}

/** Options of {@link signIn}. */
export interface SignInOptions {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly resource?: string | readonly string[];
  readonly identifier: string;
  readonly password: string;
  readonly codeChallenge?: string;
  readonly extra?: Record<string, string>;
}

/** Build an authorization URL. */
export function authorizeUrl(options: Omit<SignInOptions, 'identifier' | 'password'>): string {
  const url = new URL(`${options.baseUrl}/oidc/auth`);
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('scope', options.scope);
  url.searchParams.set('state', randomBytes(8).toString('hex'));
  if (options.codeChallenge !== undefined) {
    url.searchParams.set('code_challenge', options.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const resource of [options.resource ?? []].flat()) url.searchParams.append('resource', resource);
  for (const [name, value] of Object.entries(options.extra ?? {})) url.searchParams.set(name, value);
  return url.href;
}

/**
 * Run /oidc/auth → sign-in page → POST credentials → redirects, and return the final response: the
 * redirect to `redirectUri` (with `location`) on success, or the page that stopped the flow.
 */
export async function signIn(agent: Agent, options: SignInOptions): Promise<AgentResponse> {
  const first = await agent.follow(await agent.get(authorizeUrl(options)), options.redirectUri);
  if (first.location?.startsWith(options.redirectUri)) return first;
  if (first.status !== 200 || !first.text.includes('name="identifier"')) return first;
  const action = /<form method="post" action="([^"]+)"/.exec(first.text)![1]!;
  const posted = await agent.post(new URL(action, options.baseUrl).href, {
    csrf: hiddenField(first.text, 'csrf'),
    identifier: options.identifier,
    password: options.password,
  });
  return agent.follow(posted, options.redirectUri);
}

/** The `code` of a redirect to the client. */
export function codeOf(res: AgentResponse): string {
  const code = new URL(res.location!).searchParams.get('code');
  if (code === null) throw new Error(`no code in redirect: ${res.location}`);
  return code;
}

/** POST to the token endpoint with HTTP Basic (or none for public clients). */
export async function tokenRequest(
  baseUrl: string,
  params: Record<string, string | string[]>,
  credentials?: { clientId: string; clientSecret: string },
): Promise<{ status: number; body: Record<string, any>; headers: Headers }> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const item of [value].flat()) form.append(name, item);
  const res = await fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(credentials === undefined
        ? {}
        : {
            authorization: `Basic ${Buffer.from(`${credentials.clientId}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`,
          }),
    },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}
