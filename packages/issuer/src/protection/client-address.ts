/**
 * The client address of a request: the one function the issuer keys every per-address limit on
 * (sign-in lockout, token-endpoint rate limit, token-exchange failure limiter; oidc-provider's
 * `ctx.ip` is set from it).
 *
 * `X-Forwarded-For` is read from its right end: each trusted proxy appends the address it received
 * the request from, so the entries a client wrote are always on the left. Walking from the TCP peer
 * leftwards over `proxy.hops` entries, and over any entry in `proxy.addresses`, lands on the first
 * address no trusted proxy vouches for beyond: the client. With no trusted proxy the header is
 * ignored. Written here rather than taken from `proxy-addr` (Express) because the issuer needs hop
 * counts and address lists combined, over plain `node:http` requests.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { ResolvedProxyConfig } from '../config/protection.js';

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) as `1.2.3.4`; other values unchanged. */
const plain = (address: string): string =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

/** The `X-Forwarded-For` entries of `req` in order (every header line, comma-separated), trimmed. */
function forwardedFor(req: IncomingMessage): string[] {
  const raw = req.headersDistinct['x-forwarded-for'];
  if (raw === undefined) return [];
  return raw
    .join(',')
    .split(',')
    .map((entry) => plain(entry.trim()));
}

/**
 * The client address of `req` under `proxy` (see the module comment). Never throws; an empty string
 * only when the socket has no address (it was closed).
 *
 * @example
 * ```ts
 * // One trusted hop; the client wrote "1.1.1.1", the proxy appended the client's real address.
 * // X-Forwarded-For: 1.1.1.1, 203.0.113.9   (TCP peer: the proxy, 10.0.0.2)
 * clientAddress(req, { hops: 1, addresses: [], trusted: () => false }); // '203.0.113.9'
 * ```
 */
export function clientAddress(req: IncomingMessage, proxy: ResolvedProxyConfig): string {
  const peer = plain(req.socket.remoteAddress ?? '');
  if (proxy.hops === 0 && proxy.addresses.length === 0) return peer;
  const chain = [...forwardedFor(req), peer];
  let index = chain.length - 1;
  let hops = 0;
  while (index > 0) {
    const address = chain[index]!;
    const trusted = hops < proxy.hops || proxy.trusted(address);
    if (!trusted) break;
    hops += 1;
    const next = chain[index - 1]!;
    // A trusted proxy writes a valid address; anything else came from the client: stop at the proxy.
    if (isIP(next) === 0) return address;
    index -= 1;
  }
  return chain[index]!;
}
