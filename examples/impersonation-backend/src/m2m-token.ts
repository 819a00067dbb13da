/**
 * The backend's own machine-to-machine access token for the Management API: obtained with the client
 * credentials grant, kept in memory until shortly before it expires, and shared by concurrent requests
 * (one token request at a time). The token is never logged.
 *
 * @module
 */

/** Options of {@link createTokenSource}. */
export interface TokenSourceOptions {
  /** The issuer's token endpoint, e.g. `http://127.0.0.1:3001/oidc/token`. */
  tokenEndpoint: string;
  /** The backend's `MachineToMachine` application. */
  clientId: string;
  clientSecret: string;
  /** Resource indicator of the Management API (`{baseUrl}/api`). */
  resource: string;
  /** Scopes to ask for (space-separated). */
  scope: string;
  /** Seconds before `expires_in` ends at which the token is renewed. Default 30. */
  leeway?: number;
  fetch?: typeof fetch;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  now?: () => number;
  /** Told when a new token was obtained (never the token itself). */
  onToken?: (info: { expiresIn: number; scope: string }) => void;
}

/** A cached M2M token. */
export interface TokenSource {
  /** A valid token: the cached one, or a new one when there is none or it is about to expire. */
  get(): Promise<string>;
  /** Forget the cached token (e.g. after the Management API answered 401). */
  invalidate(): void;
}

/** The token endpoint refused or failed. Its message never contains a credential. */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';
  readonly status: number;
  readonly error: string | undefined;
  constructor(status: number, error: string | undefined) {
    super(`token endpoint answered ${status}${error === undefined ? '' : ` ${error}`}`);
    this.status = status;
    this.error = error;
  }
}

/**
 * Create a token source.
 *
 * @example
 * ```ts
 * const tokens = createTokenSource({
 *   tokenEndpoint: 'http://127.0.0.1:3001/oidc/token',
 *   clientId: 'support-backend',
 *   clientSecret: process.env.CLIENT_SECRET!,
 *   resource: 'http://127.0.0.1:3001/api',
 *   scope: 'subject-tokens:create',
 * });
 * const token = await tokens.get(); // one request; later calls reuse it until it nearly expires
 * ```
 */
export function createTokenSource(options: TokenSourceOptions): TokenSource {
  const { tokenEndpoint, clientId, clientSecret, resource, scope, leeway = 30, onToken } = options;
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function request(): Promise<string> {
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
    const res = await doFetch(tokenEndpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic.toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
    });
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      scope?: unknown;
      error?: unknown;
    };
    if (res.status !== 200 || typeof body.access_token !== 'string') {
      throw new TokenRequestError(res.status, typeof body.error === 'string' ? body.error : undefined);
    }
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 60;
    // Renew `leeway` seconds early, but never later than half-way through a short-lived token.
    const early = Math.min(leeway, expiresIn / 2);
    cached = { token: body.access_token, renewAt: now() + (expiresIn - early) * 1000 };
    onToken?.({ expiresIn, scope: typeof body.scope === 'string' ? body.scope : scope });
    return body.access_token;
  }

  return {
    get() {
      if (cached !== undefined && now() < cached.renewAt) return Promise.resolve(cached.token);
      pending ??= request().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
