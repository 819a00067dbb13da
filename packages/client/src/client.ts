/**
 * `createClient()`: one object per application that signs users in and hands out access tokens per
 * API resource. It works the same in a browser page (a public SPA client with PKCE) and in Node
 * (scripts, servers, tests); only the defaults of `signIn()`/`signOut()` navigation differ.
 *
 * @module
 */

import { exchangeSubjectToken } from './exchange.js';
import { type FetchTokenSource, resourceFetch } from './fetch.js';
import { Context } from './internal/context.js';
import { type ClientOptions, resolveOptions } from './options.js';
import { handleSignInCallback, signIn } from './sign-in.js';
import { signOut } from './sign-out.js';
import { TokenManager } from './tokens.js';
import type {
  ExchangeRequest,
  ExchangeResult,
  IdTokenClaims,
  SignInOptions,
  SignOutOptions,
} from './types.js';

/**
 * A Gatehouse client. Every method is safe to call concurrently.
 *
 * @example
 * ```ts
 * const client = createClient(options);
 * if (!(await client.isAuthenticated())) await client.signIn();
 * const token = await client.getAccessToken('https://orders.example.com');
 * ```
 */
export interface Client {
  /** The issuer identifier (discovery is fetched from it on first use). */
  readonly issuer: string;
  /** The client id. */
  readonly clientId: string;
  /** The configured resource indicators. */
  readonly resources: readonly string[];
  /**
   * Start a sign-in. Resolves to the authorization URL; in a browser page it also sends the page
   * there, unless `{ redirect: false }`. The PKCE verifier, state and nonce are kept in the client's
   * storage until {@link Client.handleSignInCallback}.
   */
  signIn(options?: SignInOptions): Promise<URL>;
  /**
   * Finish the sign-in from the URL the issuer redirected to (default in a browser: the current
   * URL). Resolves to the validated ID token claims.
   */
  handleSignInCallback(url?: string | URL): Promise<IdTokenClaims>;
  /**
   * Forget the session, revoke its refresh token, and resolve to the issuer's end-session URL (in a
   * browser page the page is sent there unless `{ redirect: false }`).
   */
  signOut(options?: SignOutOptions): Promise<URL | undefined>;
  /**
   * An access token whose audience is `resource` (one of `resources`): from memory while it is valid,
   * otherwise by a refresh-token request carrying `resource`. Without `resource`: the OpenID Connect
   * access token (userinfo; the `actorToken` of an impersonation exchange).
   */
  getAccessToken(resource?: string): Promise<string>;
  /** Exchange a subject token for an access token (RFC 8693 impersonation). Nothing is stored. */
  exchangeSubjectToken(request: ExchangeRequest): Promise<ExchangeResult>;
  /** Claims of the signed-in user's ID token, or `undefined` when no one is signed in. */
  getIdTokenClaims(): Promise<IdTokenClaims | undefined>;
  /** Whether a session exists that can still produce access tokens. */
  isAuthenticated(): Promise<boolean>;
  /**
   * Call an API: `fetch(input, init)` with the access token of `resource` (or `{ accessToken }`), sent
   * as `Authorization: DPoP` with a fresh proof when DPoP is on, as `Bearer` otherwise. A `401`
   * `use_dpop_nonce` challenge is answered once with the API's `DPoP-Nonce`; any other answer is
   * returned as it is.
   */
  fetch(resource: FetchTokenSource, input: string | URL, init?: RequestInit): Promise<Response>;
  /**
   * RFC 7638 thumbprint of the client's DPoP public key — the `cnf.jkt` of the tokens bound to it —
   * or `undefined` when DPoP is off. The key is made (or loaded) on first use.
   */
  dpopThumbprint(): Promise<string | undefined>;
}

/**
 * Create a client. Options are validated now (a `TypeError` names the bad one); nothing is fetched
 * until the first call that needs the issuer.
 *
 * @example Browser (single-page app)
 * ```ts
 * import { createClient } from '@gatehouse/client';
 *
 * const client = createClient({
 *   endpoint: 'https://id.example.com',
 *   clientId: 'support-console',
 *   redirectUri: `${location.origin}/callback`,
 *   resources: ['https://orders.example.com', 'https://billing.example.com'],
 *   scopes: ['read:orders', 'read:billing'],
 *   storage: 'sessionStorage',
 * });
 * if (location.pathname === '/callback') await client.handleSignInCallback();
 * else if (!(await client.isAuthenticated())) await client.signIn();
 * ```
 *
 * @example DPoP (sender-constrained tokens)
 * ```ts
 * const client = createClient({ ...options, dpop: true });
 * await client.signIn();
 * // … after handleSignInCallback(): every token is bound to the client's key
 * const res = await client.fetch('https://orders.example.com', 'https://orders.example.com/orders');
 * ```
 *
 * @example Node
 * ```ts
 * const client = createClient({ endpoint: 'http://127.0.0.1:3001', allowInsecureRequests: true,
 *   clientId: 'cli', redirectUri: 'http://127.0.0.1:8976/callback', resources: [ORDERS], scopes: ['read:orders'] });
 * const url = await client.signIn(); // open it in a browser; the callback arrives at your loopback server
 * await client.handleSignInCallback(callbackUrl);
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const ctx = new Context(resolveOptions(options));
  const tokens = new TokenManager(ctx);
  return Object.freeze({
    issuer: ctx.options.issuer.href,
    clientId: ctx.options.clientId,
    resources: ctx.options.resources,
    signIn: (signInOptions?: SignInOptions) => signIn(ctx, signInOptions),
    handleSignInCallback: (url?: string | URL) => handleSignInCallback(ctx, tokens, url),
    signOut: (signOutOptions?: SignOutOptions) => signOut(ctx, tokens, signOutOptions),
    getAccessToken: (resource?: string) => tokens.get(resource),
    exchangeSubjectToken: async (request: ExchangeRequest) => exchangeSubjectToken(ctx, request),
    async getIdTokenClaims() {
      return (await ctx.records.getSession())?.claims;
    },
    async isAuthenticated() {
      const session = await ctx.records.getSession();
      if (session === undefined) return false;
      return session.refreshToken !== undefined || session.claims.exp * 1000 > ctx.now();
    },
    fetch: (resource: FetchTokenSource, input: string | URL, init?: RequestInit) =>
      resourceFetch(ctx, tokens, resource, input, init),
    dpopThumbprint: async () => ctx.dpopKey?.thumbprint(ctx.client),
  });
}
