/**
 * One public origin. oidc-provider builds every absolute URL it emits (the discovery document's
 * endpoints and `jwks_uri`, the interaction and resume redirects, logout forms, the DPoP `htu` it
 * expects) from Koa's `ctx.protocol` and `ctx.host`, which Koa reads from the request's `Host` header
 * (and `X-Forwarded-Host` / `X-Forwarded-Proto` when proxies are trusted): headers a client writes.
 * Here both are pinned to the configured `baseUrl` on the provider's request prototype (Koa's
 * `app.request`, the prototype of every `ctx.request`), so no header can change an emitted URL and a
 * cache in front cannot be poisoned into sending resource servers to another key set.
 *
 * `ctx.secure` follows the pinned scheme: behind a TLS-terminating proxy the cookies of an `https:`
 * issuer are `Secure` whatever the proxy sends. The client address (`ctx.ip`) is not touched.
 *
 * With the URLs independent of the request, the discovery document and the JWKS are the same for
 * everyone and are answered with `Cache-Control: public` (ages in `DEFAULTS.responses`).
 *
 * @module
 */
import type Provider from 'oidc-provider';
import { DEFAULTS } from '../config/defaults.js';

/** Routes whose successful answers every client may share (oidc-provider route names). */
const PUBLIC_ROUTES: Readonly<Record<string, number>> = Object.freeze({
  discovery: DEFAULTS.responses.discoveryMaxAge,
  jwks: DEFAULTS.responses.jwksMaxAge,
});

/**
 * Pin `provider`'s notion of its own origin to `baseUrl`, and mark its discovery and JWKS answers
 * cacheable.
 *
 * @example
 * ```ts
 * const provider = new Provider(config.issuer, configuration);
 * pinPublicOrigin(provider, config.baseUrl);
 * // GET /oidc/.well-known/openid-configuration with Host: evil.example
 * // → "jwks_uri": "https://id.example.com/oidc/jwks", Cache-Control: public, max-age=300
 * ```
 */
export function pinPublicOrigin(provider: Provider, baseUrl: string): void {
  const { host, protocol } = new URL(baseUrl);
  const scheme = protocol.slice(0, -1);
  Object.defineProperties(provider.request, {
    host: { get: () => host, configurable: true },
    protocol: { get: () => scheme, configurable: true },
  });
  provider.use(async (ctx, next) => {
    await next();
    const maxAge = PUBLIC_ROUTES[ctx.oidc?.route ?? ''];
    if (maxAge !== undefined && ctx.status === 200 && (ctx.method === 'GET' || ctx.method === 'HEAD'))
      ctx.set('cache-control', `public, max-age=${maxAge}`);
  });
}
