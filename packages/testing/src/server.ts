/**
 * A real loopback HTTP server for a test issuer (`await issuer.listen()`): for tests whose API runs in
 * another process, or that want real sockets instead of msw. Binds loopback hosts only, never a public
 * interface, and does not keep the process alive by itself.
 *
 * @module
 */

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rejectUnknownOptions } from '@gatehouse/core';
import { DEFAULTS } from './defaults.js';
import type { RouteResult } from './internal/routes.js';

/**
 * Options of `issuer.listen()`.
 *
 * @example
 * ```ts
 * const server = await issuer.listen({ port: 0, host: '127.0.0.1' });
 * ```
 */
export interface ListenOptions {
  /** TCP port. Default: the port of an `http://127.0.0.1:PORT` issuer URL, else `0` (any free port). */
  port?: number;
  /** Loopback host to bind: `127.0.0.1`, `::1` or `localhost`. Default `127.0.0.1`. */
  host?: string;
}

/**
 * A running loopback issuer, returned by `issuer.listen()`.
 *
 * @example
 * ```ts
 * const server = await issuer.listen();
 * spawn('node', ['api.js'], { env: { ...process.env, ISSUER: server.issuer, JWKS_URI: server.jwksUri } });
 * await server.close();
 * ```
 */
export interface IssuerServer {
  /** Origin of the server, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /** The issuer URL tokens carry while the server runs (see `TestIssuer.listen()`). */
  readonly issuer: string;
  /** The JWKS URL on this server. */
  readonly jwksUri: string;
  /** Stop the server: open and pending requests are cut, and the issuer's URLs are restored. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;

/** Whether `host` is a loopback host name or address. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.test(host);
}

/** Validate {@link ListenOptions}. Throws a `TypeError` naming the option. */
export function validateListenOptions(options: unknown): ListenOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('listen options must be an object');
  }
  rejectUnknownOptions(options, ['port', 'host']);
  const { port, host } = options as ListenOptions;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new TypeError('"port" option must be an integer between 0 and 65535');
  }
  if (host !== undefined && (typeof host !== 'string' || !isLoopbackHost(host))) {
    throw new TypeError('"host" option must be a loopback host (127.0.0.1, ::1 or localhost)');
  }
  return { port, host };
}

/** A started loopback server (transport only; the issuer adds its URLs). */
export interface LoopbackServer {
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Start a loopback HTTP server that answers every request through `handle`; unknown URLs get 404.
 *
 * @example
 * ```ts
 * const server = await startLoopbackServer((method, url) => route(endpoints, content, method, url));
 * ```
 */
export async function startLoopbackServer(
  handle: (method: string, url: URL) => RouteResult | undefined,
  options: ListenOptions = {},
): Promise<LoopbackServer> {
  const host = (options.host ?? DEFAULTS.host).replace(/^\[|\]$/g, '');
  const pending = new Set<ServerResponse>();
  let origin = '';

  const server = createServer((req, res) => {
    let result: RouteResult | undefined;
    try {
      result = handle(req.method ?? 'GET', new URL(req.url ?? '/', origin));
    } catch {
      result = undefined;
    }
    if (result === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    } else if (result.kind === 'hang') {
      pending.add(res);
      res.on('close', () => pending.delete(res));
    } else {
      res.writeHead(result.status, result.headers).end(req.method === 'HEAD' ? undefined : result.body);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    origin,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const res of pending) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
