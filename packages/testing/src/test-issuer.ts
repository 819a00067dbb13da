/**
 * {@link createTestIssuer}: a fake OAuth 2.0 authorization server for tests. It owns signing keys, mints
 * access tokens (good and deliberately bad ones), and serves discovery and its JWKS three ways: msw
 * handlers, an in-memory `fetch`, or a real loopback server. Every issuer is independent: nothing is
 * shared between two calls, so tests cannot leak state into each other.
 *
 * @module
 */
import type { HttpHandler } from 'msw';
import { createBadTokens } from './bad-tokens.js';
import { DEFAULTS } from './defaults.js';
import { createInMemoryFetch } from './fetch.js';
import {
  createHandlers,
  loadMsw,
  mswMissing,
  type OutageOptions,
  outageHandler,
  type TimeoutOutageOptions,
} from './handlers.js';
import {
  defaultJwksUri,
  type Endpoints,
  endpointsFor,
  OUTAGE_KINDS,
  type OutageKind,
  type RouteContent,
  route,
} from './internal/routes.js';
import { signCompact } from './jws.js';
import { generateSigningKey, KeyRing, type RotateOptions, type SigningKey } from './keys.js';
import {
  resolveIssuerOptions,
  type SignOptions,
  type TestIssuerOptions,
  validateClaims,
  validateSignOptions,
} from './options.js';
import {
  type IssuerServer,
  isLoopbackHost,
  type ListenOptions,
  type LoopbackServer,
  startLoopbackServer,
  validateListenOptions,
} from './server.js';
import { accessTokenClaims, type ClaimDefaults, tokenHeader } from './tokens.js';
import type { ActorClaim, Claims, Outage, TestIssuer } from './types.js';

/**
 * Create a test issuer with a fresh signing key (ES256 unless `alg` says otherwise).
 *
 * Options are validated here: a bad one throws a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { createTestIssuer } from '@gatehouse/testing';
 * import { setupServer } from 'msw/node';
 *
 * const issuer = await createTestIssuer({ audience: 'https://api.example.com' });
 * const server = setupServer(...issuer.handlers);
 * server.listen({ onUnhandledRequest: 'error' });
 *
 * const token = await issuer.sign({ scope: 'read:orders' });
 * const denied = await issuer.tokens.expired();
 * ```
 */
export async function createTestIssuer(options?: TestIssuerOptions): Promise<TestIssuer> {
  const resolved = resolveIssuerOptions(options);
  const [firstKey, msw] = await Promise.all([generateSigningKey(resolved.alg, resolved.kid), loadMsw()]);
  const ring = new KeyRing(firstKey);

  let issuerUrl = resolved.issuer;
  let jwksUri = defaultJwksUri(issuerUrl);
  let outage: OutageKind | undefined;
  let listening: IssuerServer | 'starting' | undefined;

  const content: RouteContent = {
    get issuer() {
      return issuerUrl;
    },
    get jwksUri() {
      return jwksUri;
    },
    get alg() {
      return ring.active.alg;
    },
    jwks: () => ring.jwks(),
    get outage() {
      return outage;
    },
  };

  let endpoints: Endpoints = endpointsFor(issuerUrl, jwksUri);
  let handlers: HttpHandler[] | undefined;
  const setUrls = (nextIssuer: string, nextJwksUri: string) => {
    issuerUrl = nextIssuer;
    jwksUri = nextJwksUri;
    endpoints = endpointsFor(issuerUrl, jwksUri);
    handlers = undefined;
  };
  const requireMsw = () => {
    if (msw === undefined) throw mswMissing();
    return msw;
  };

  const claimDefaults = (): ClaimDefaults => ({
    issuer: issuerUrl,
    audience: resolved.audience,
    subject: resolved.subject,
    clientId: resolved.clientId,
    scope: resolved.scope,
    expiresIn: resolved.expiresIn,
  });

  function keyFor(kid: string | undefined): SigningKey {
    if (kid === undefined) return ring.active;
    const key = ring.find(kid);
    if (key === undefined)
      throw new TypeError(
        `"kid" option must name a published key (${ring.published.map((k) => k.kid).join(', ')})`,
      );
    return key;
  }

  function mint(claims: unknown, options: unknown, base: Claims = {}): string {
    const opts = validateSignOptions(options);
    const payload = accessTokenClaims(claimDefaults(), { ...base, ...validateClaims(claims) }, opts);
    const signer = keyFor(opts.kid);
    return signCompact(signer, tokenHeader(signer, opts), payload);
  }

  const sign = async (claims?: Claims, options?: SignOptions): Promise<string> => mint(claims, options);

  const tokens = createBadTokens({
    mint,
    claims: (claims, opts) => accessTokenClaims(claimDefaults(), validateClaims(claims), opts),
    get activeKey() {
      return ring.active;
    },
    get defaults() {
      return claimDefaults();
    },
  });

  const outageControl: Outage = Object.freeze({
    serverError: (o?: OutageOptions) => outageHandler(requireMsw(), endpoints, content, 'serverError', o),
    timeout: (o?: TimeoutOutageOptions) => outageHandler(requireMsw(), endpoints, content, 'timeout', o),
    malformed: (o?: OutageOptions) => outageHandler(requireMsw(), endpoints, content, 'malformed', o),
    simulate(kind: OutageKind) {
      if (!OUTAGE_KINDS.includes(kind))
        throw new TypeError(`outage kind must be one of ${OUTAGE_KINDS.join(', ')}`);
      outage = kind;
    },
    clear() {
      outage = undefined;
    },
    get current() {
      return outage;
    },
  });

  async function listen(options?: ListenOptions): Promise<IssuerServer> {
    const opts = validateListenOptions(options);
    const chosen = new URL(resolved.issuer);
    const boundToIssuer =
      resolved.explicitIssuer && chosen.protocol === 'http:' && isLoopbackHost(chosen.hostname);
    let { port, host } = opts;
    if (boundToIssuer) {
      const issuerPort = Number(chosen.port || 80);
      if (port !== undefined && port !== issuerPort)
        throw new TypeError('"port" option must match the port of the "issuer" URL');
      port = issuerPort;
      host ??= chosen.hostname;
    }
    if (listening !== undefined)
      throw new Error('listen(): this test issuer is already listening; close() it first');
    listening = 'starting';

    let server: LoopbackServer;
    try {
      server = await startLoopbackServer(
        (method, url) => {
          // The server answers for the issuer path on its own origin, whatever the issuer's origin is.
          const served = endpointsFor(`${url.origin}${new URL(issuerUrl).pathname}`, jwksUri);
          return route(served, content, method, url);
        },
        { port, host },
      );
    } catch (error) {
      listening = undefined;
      throw error;
    }

    const before = { issuer: issuerUrl, jwksUri };
    if (!resolved.explicitIssuer) {
      const moved = `${server.origin}${new URL(DEFAULTS.issuer).pathname}`;
      setUrls(moved, defaultJwksUri(moved));
    } else if (!boundToIssuer) {
      setUrls(issuerUrl, `${server.origin}${chosen.pathname.replace(/\/$/, '')}${DEFAULTS.jwksPath}`);
    }

    const handle: IssuerServer = Object.freeze({
      url: server.origin,
      issuer: issuerUrl,
      jwksUri,
      close: async () => {
        if (listening === handle) {
          listening = undefined;
          setUrls(before.issuer, before.jwksUri);
        }
        await server.close();
      },
    });
    listening = handle;
    return handle;
  }

  const issuer: TestIssuer = {
    get issuer() {
      return issuerUrl;
    },
    audience: Array.isArray(resolved.audience) ? [...resolved.audience] : (resolved.audience as string),
    get jwksUri() {
      return jwksUri;
    },
    get kid() {
      return ring.active.kid;
    },
    get alg() {
      return ring.active.alg;
    },
    get handlers() {
      handlers ??= createHandlers(requireMsw(), endpoints, content);
      return [...handlers];
    },
    sign,
    tokens,
    impersonation: async (actor: string | ActorClaim, claims?: Claims, options?: SignOptions) => {
      const act = typeof actor === 'string' ? { sub: actor } : actor;
      if (act === null || typeof act !== 'object' || typeof act.sub !== 'string' || act.sub.length === 0) {
        throw new TypeError('"actor" must be a non-empty string or an object with a non-empty string "sub"');
      }
      return mint({ ...validateClaims(claims), act }, options);
    },
    rotateKeys: async (options?: RotateOptions) => {
      await ring.rotate(options);
    },
    jwks: () => ring.jwks(),
    outage: outageControl,
    fetch: createInMemoryFetch(() => endpoints, content),
    verifierOptions: () => ({
      issuer: issuerUrl,
      audience: Array.isArray(resolved.audience) ? [...resolved.audience] : (resolved.audience as string),
      jwksUri,
    }),
    listen,
  };
  return Object.freeze(issuer);
}
