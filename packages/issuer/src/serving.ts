/**
 * The servers an issuer answers on: `listen()` binds a new one, `serve()` takes over one bound before
 * the issuer was created (see `bindServer`), and `close()` closes them all. Once closed, no server
 * can be added.
 *
 * @module
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { RequestHandler } from './front.js';
import { answerClientError } from './internal/client-error.js';
import { closeServer, listenOn, stopStarting } from './internal/listen.js';
import type { ResolvedConfig } from './issuer-config.js';

/**
 * The issuer's servers.
 *
 * @example
 * ```ts
 * const servers: Serving = createServing(handler, config, log);
 * const address = await servers.listen(0, '127.0.0.1');
 * await servers.close();
 * ```
 */
export interface Serving {
  /** Bind `port`/`host` (defaults from the config) and serve there; a taken port rejects with a `ListenError`. */
  listen(port?: number, host?: string): Promise<AddressInfo>;
  /** Serve on a server already listening on a TCP port; resolves to its address. */
  serve(server: Server): AddressInfo;
  /** Close every server (idempotent). */
  close(): Promise<void>;
}

/**
 * Serve `handler`.
 *
 * @example
 * ```ts
 * const servers = createServing(handler, config, log);
 * servers.serve(await bindServer(3001, '127.0.0.1'));
 * ```
 */
export function createServing(handler: RequestHandler, config: ResolvedConfig, log: Logger): Serving {
  const servers = new Set<Server>();
  let closed = false;
  const serve = (server: Server): AddressInfo => {
    if (closed) throw new Error('the issuer is closed');
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new TypeError('serve() needs a server listening on a TCP port');
    stopStarting(server);
    server.on('request', handler);
    server.on('clientError', answerClientError);
    servers.add(server);
    log.info(
      { event: 'listening', host: address.address, port: address.port, issuer: config.issuer },
      'issuer listening',
    );
    return address;
  };
  return {
    serve,
    async listen(port = config.port, host = config.host) {
      const server = createServer();
      await listenOn(server, port, host);
      return serve(server);
    },
    async close() {
      closed = true;
      await Promise.all([...servers].map(closeServer));
    },
  };
}
