/**
 * A minimal loopback HTTP server for tests that need paths or behaviours `jwks-server.ts` does not
 * offer (RFC 8414 metadata, a second "issuer", a redirect target): a route table, per-path request
 * counts, and a way to obtain a port nothing listens on.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Answers one request; a route that returns without ending the response leaves it hanging. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface TestServer {
  /** `http://127.0.0.1:port` */
  readonly origin: string;
  /** Requests per path (every path, routed or not). */
  readonly hits: Map<string, number>;
  /** Requests received, all paths. */
  total(): number;
  /** Add or replace the handler of `path`. */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** Answer with `status` and `body` as JSON. */
export const json =
  (body: unknown, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

/** Answer with a bare status. */
export const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(code, headers).end();
  };

/** Start a loopback server; unknown paths get 404. */
export async function startServer(routes: Record<string, Handler> = {}): Promise<TestServer> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const handler = table.get(path);
    if (handler === undefined) res.writeHead(404).end();
    else handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    total: () => [...hits.values()].reduce((a, b) => a + b, 0),
    route: (path, handler) => {
      table.set(path, handler);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An `http://127.0.0.1:port` origin where nothing listens (connections are refused). */
export async function refusedOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
