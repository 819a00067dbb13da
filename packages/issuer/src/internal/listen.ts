/**
 * Binding a port with a clear error: `EADDRINUSE` and friends become a one-line {@link ListenError}
 * that says what to change, instead of Node's raw `listen EADDRINUSE` error.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULTS } from '../config/defaults.js';
import { ListenError } from '../errors.js';

/**
 * Listen on `port`/`host`; resolves to the bound address, rejects with a {@link ListenError}.
 *
 * @param change - How the message tells the user to pick another port or host.
 *
 * @example
 * ```ts
 * const address = await listenOn(createServer(handler), 3001, '127.0.0.1');
 * ```
 */
export function listenOn(
  server: Server,
  port: number,
  host: string,
  change?: { port: string; host: string },
): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) =>
      reject(new ListenError(port, host, err.code ?? err.message, change));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** The request listener of a bound server whose issuer is not ready yet. */
const STARTING = new WeakMap<Server, (req: IncomingMessage, res: ServerResponse) => void>();

/**
 * A server bound to `port`/`host` that answers `503 {"status":"starting"}` (with `Retry-After`) until
 * `issuer.serve(server)` takes over: bind first, so a taken port is known before anything is created.
 * `livePath` (the liveness probe, `{basePath}/health/live`) is answered `200 {"status":"ok"}` meanwhile:
 * the process is up, and a long start (migrations) is no reason to restart it.
 *
 * @example
 * ```ts
 * const server = await bindServer(3001, '127.0.0.1'); // ListenError when the port is taken
 * const issuer = await createIssuer(config);
 * issuer.serve(server);
 * ```
 */
export async function bindServer(
  port: number,
  host: string,
  change?: { port: string; host: string },
  livePath?: string,
): Promise<Server> {
  const starting = (req: IncomingMessage, res: ServerResponse) => {
    if (livePath !== undefined && req.url === livePath) {
      res
        .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end('{"status":"ok"}');
      return;
    }
    res
      .writeHead(503, {
        'content-type': 'application/json',
        'retry-after': String(DEFAULTS.startup.retryAfter),
      })
      .end('{"status":"starting"}');
  };
  const server = createServer(starting);
  STARTING.set(server, starting);
  await listenOn(server, port, host, change);
  return server;
}

/**
 * Stop the "starting" answers of a {@link bindServer} server (no-op for any other server).
 *
 * @example
 * ```ts
 * stopStarting(server);
 * server.on('request', handler);
 * ```
 */
export function stopStarting(server: Server): void {
  const starting = STARTING.get(server);
  if (starting === undefined) return;
  server.off('request', starting);
  STARTING.delete(server);
}

/**
 * Stop a server and drop its open connections.
 *
 * @example
 * ```ts
 * await closeServer(server);
 * ```
 */
export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
