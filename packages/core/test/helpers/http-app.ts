/**
 * A real loopback Node HTTP server that authenticates each request with a verifier, the way an adapter
 * does: it passes `headers`, `rawHeaders`, `method`, the absolute `url`, the query and a form body to `authenticate()` and
 * answers an `AuthError` with its status, headers and JSON body.
 */
import { createServer, request as httpRequest, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAuthError, type Verifier } from '../../src/index.js';

export interface AppResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Record<string, unknown>;
}

export interface TestApp {
  readonly origin: string;
  /** Send a request; header values that are arrays are sent as repeated header lines. */
  request(
    path: string,
    options?: { method?: string; headers?: OutgoingHttpHeaders; body?: string },
  ): Promise<AppResponse>;
  close(): Promise<void>;
}

export async function startApp(verifier: Verifier): Promise<TestApp> {
  let origin = '';
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const form = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
    try {
      const auth = await verifier.authenticate({
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        method: req.method,
        url: `${origin}${req.url ?? '/'}`,
        query: new URL(req.url ?? '/', 'http://x').searchParams,
        body: form ? Object.fromEntries(new URLSearchParams(text)) : undefined,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sub: auth.subject }));
    } catch (error) {
      if (!isAuthError(error)) {
        res.writeHead(500).end(JSON.stringify({ error: 'server_error' }));
        return;
      }
      res
        .writeHead(error.status, { ...error.headers, 'content-type': 'application/json' })
        .end(JSON.stringify(error.toJSON()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    request(path, options = {}) {
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path,
            method: options.method ?? 'GET',
            headers: {
              ...(options.body === undefined ? {} : { 'content-length': Buffer.byteLength(options.body) }),
              ...options.headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let body: Record<string, unknown> = {};
              try {
                body = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {};
              } catch {
                body = { raw: text };
              }
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
            });
          },
        );
        req.on('error', reject);
        req.end(options.body);
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
