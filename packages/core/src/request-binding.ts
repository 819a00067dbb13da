/**
 * What a sender-constrained token is checked against, read from the request the same way by every
 * adapter and by core's own request views (`node-request.ts`, `fetch-request.ts`): the absolute URL a
 * DPoP proof's `htu` must name (from the `origin` option, else the framework's view of scheme and host)
 * and the client's TLS certificate on a Node socket.
 *
 * @module
 */

import type { TLSSocket } from 'node:tls';

/**
 * Validate an `origin` option: `scheme://host[:port]` (http or https), or a `TypeError` naming it.
 *
 * @example
 * ```ts
 * publicOrigin('https://api.example.com'); // 'https://api.example.com'
 * publicOrigin('https://api.example.com/v1'); // throws TypeError: "origin" option must be …
 * ```
 */
export function publicOrigin(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const must =
    'must be an absolute http(s) origin such as "https://api.example.com" (no path, query or fragment)';
  if (typeof value !== 'string' || !URL.canParse(value)) throw new TypeError(`"origin" option ${must}`);
  const url = new URL(value);
  const bare = url.pathname === '/' && url.search === '' && url.hash === '' && !value.endsWith('#');
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    !bare ||
    url.username !== '' ||
    url.password !== ''
  )
    throw new TypeError(`"origin" option ${must}`);
  return url.origin;
}

/**
 * The absolute URL a DPoP proof's `htu` is compared with: the `origin` option, else the framework's
 * view of scheme and host (its trust-proxy setting decides), then the path and query of the
 * request-target — of an absolute-form target too (RFC 9112 §3.2.2), whose own scheme and host count
 * for nothing. `undefined`, so that no proof can match, when no host is known (an HTTP/1.0 request
 * without `Host`) or the target is neither origin-form nor an http(s) absolute-form. Shared by every
 * framework adapter, so they all build the same URL.
 *
 * @example
 * ```ts
 * requestUrl(undefined, 'https', 'api.example.com', '/orders?page=2'); // 'https://api.example.com/orders?page=2'
 * requestUrl('https://api.example.com', 'http', '10.0.0.7:8080', 'http://10.0.0.7:8080/orders');
 * // 'https://api.example.com/orders'
 * ```
 */
export function requestUrl(
  origin: string | undefined,
  protocol: string,
  host: string | undefined,
  target: string,
): string | undefined {
  const base = origin ?? (host ? `${protocol}://${host}` : undefined);
  if (base === undefined) return undefined;
  if (target.startsWith('/')) return `${base}${target}`;
  const absolute = URL.parse(target);
  if (absolute === null || (absolute.protocol !== 'http:' && absolute.protocol !== 'https:'))
    return undefined;
  return `${base}${absolute.pathname}${absolute.search}`;
}

/**
 * The client's TLS certificate (DER) on a Node socket, for certificate-bound tokens: `undefined` on a
 * plain TCP socket, or when the client sent none. Shared by every framework adapter.
 *
 * @example
 * ```ts
 * const request: RequestLike = { headers: req.headers, clientCertificate: peerCertificate(req.socket) };
 * ```
 */
export function peerCertificate(socket: unknown): Uint8Array | undefined {
  return (socket as Partial<TLSSocket> | undefined)?.getPeerCertificate?.()?.raw;
}
