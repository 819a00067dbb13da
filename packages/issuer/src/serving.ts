/**
 * The servers an issuer answers on: `listen()` binds a new one, `serve()` takes over one bound before
 * the issuer was created (see `bindServer`), and `close()` closes them all. Once closed, no server
 * can be added. For a graceful stop, `markDraining()` makes every answer from then on carry
 * `Connection: close` (so kept-alive connections end after their request), and `drain()` stops
 * accepting connections, closes the idle ones and resolves once the requests in flight are answered.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
  /** Close every server and drop their connections, requests in flight included (idempotent). */
  close(): Promise<void>;
  /** From now on every answer carries `Connection: close`, and each connection ends after its request. */
  markDraining(): void;
  /**
   * Stop accepting connections and close the idle ones; resolves once every request in flight is
   * answered and its connection closed. {@link close} cuts what remains.
   */
  drain(): Promise<void>;
  /** Requests in flight now: not answered yet, or their body not all received yet. */
  readonly inFlight: number;
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
  const answering = new Set<ServerResponse>();
  let closed = false;
  let draining = false;
  /** Set by drain(): idle connections are closed from then on (not before: a balancer may still use them). */
  let closing = false;
  const track = (server: Server) => (req: IncomingMessage, res: ServerResponse) => {
    answering.add(res);
    if (draining) res.setHeader('connection', 'close');
    // In flight until answered and until its body has been received (or the connection dropped): an
    // answer sent before the body arrived still leaves its connection busy.
    let open = 2;
    const done = () => {
      if (--open > 0) return;
      answering.delete(res);
      // A request that began before the drain may have kept its connection alive: close it once idle.
      // Only when no longer accepting: during the drain delay a balancer may still send a request on any
      // idle connection, and closing one under it would lose that request.
      if (closing) setImmediate(() => server.closeIdleConnections());
    };
    res.once('close', done);
    req.once('close', done);
  };
  const markDraining = () => {
    draining = true;
    for (const res of answering) if (!res.headersSent) res.setHeader('connection', 'close');
  };
  const serve = (server: Server): AddressInfo => {
    if (closed) throw new Error('the issuer is closed');
    const address = server.address();
    if (address === null || typeof address === 'string')
      throw new TypeError('serve() needs a server listening on a TCP port');
    stopStarting(server);
    // Before the handler, so that it sees the header and the count includes every request.
    server.on('request', track(server));
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
      // A drained server no longer listens, but may still hold connections with requests in flight.
      for (const server of servers) if (!server.listening) server.closeAllConnections();
      await Promise.all([...servers].map(closeServer));
    },
    markDraining,
    async drain() {
      markDraining();
      closed = true;
      closing = true;
      await Promise.all(
        [...servers].map(
          (server) =>
            new Promise<void>((resolve) => {
              if (!server.listening) return resolve();
              // Stops accepting, and (Node 19+) closes the connections that carry no request now.
              server.close(() => resolve());
              server.closeIdleConnections();
            }),
        ),
      );
    },
    get inFlight() {
      return answering.size;
    },
  };
}
