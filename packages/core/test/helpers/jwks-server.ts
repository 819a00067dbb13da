/**
 * A real loopback HTTP server playing the issuer: OpenID discovery and a JWKS, with switchable
 * behaviour (outage, hang, garbage, redirect, huge body, latency) and per-path request counts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type JwksMode = 'ok' | '500' | 'hang' | 'not-json' | 'no-keys-array' | 'redirect' | 'huge' | 'empty';

export interface JwksServer {
  /** `http://127.0.0.1:port` */
  readonly origin: string;
  /** The issuer identifier served by discovery (`{origin}/oidc` by default). */
  readonly issuer: string;
  readonly jwksUri: string;
  /** Requests per path. */
  readonly hits: Map<string, number>;
  /** JWKS requests so far. */
  jwksHits(): number;
  /** Replace the served JWKS. */
  setKeys(jwks: unknown): void;
  setMode(mode: JwksMode): void;
  /** Delay every response by `ms`. */
  setLatency(ms: number): void;
  /** Override the discovery document (or `null` for 404). */
  setMetadata(doc: Record<string, unknown> | null): void;
  close(): Promise<void>;
}

export async function startJwksServer(
  initialKeys: unknown,
  options: { issuerPath?: string } = {},
): Promise<JwksServer> {
  let keys = initialKeys;
  let mode: JwksMode = 'ok';
  let latency = 0;
  let metadata: Record<string, unknown> | null | undefined;
  const hits = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const issuerPath = options.issuerPath ?? '/oidc';

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const respond = () => {
      if (path === `${issuerPath}/.well-known/openid-configuration`) {
        if (metadata === null) return res.writeHead(404).end();
        const doc = metadata ?? { issuer: `${origin}${issuerPath}`, jwks_uri: `${origin}/jwks` };
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
      }
      if (path !== '/jwks') return res.writeHead(404).end();
      switch (mode) {
        case '500':
          return res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>down</h1>');
        case 'hang':
          hanging.add(res);
          return;
        case 'not-json':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [');
        case 'no-keys-array':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": {"kid": "x"}}');
        case 'redirect':
          return res.writeHead(302, { location: 'https://evil.test/jwks' }).end();
        case 'empty':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": []}');
        case 'huge': {
          res.writeHead(200, { 'content-type': 'application/json' });
          const chunk = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const pump = () => {
            while (sent < 10 * 1024 * 1024) {
              sent += chunk.length;
              if (!res.write(chunk)) return res.once('drain', pump);
            }
            res.end();
          };
          res.on('error', () => {});
          return pump();
        }
        default:
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(keys));
      }
    };
    if (latency > 0) setTimeout(respond, latency);
    else respond();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    issuer: `${origin}${issuerPath}`,
    jwksUri: `${origin}/jwks`,
    hits,
    jwksHits: () => hits.get('/jwks') ?? 0,
    setKeys: (next) => {
      keys = next;
    },
    setMode: (next) => {
      mode = next;
    },
    setLatency: (ms) => {
      latency = ms;
    },
    setMetadata: (doc) => {
      metadata = doc;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
