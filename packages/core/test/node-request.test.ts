/**
 * `nodeRequestLike()`: core's view of a real Node `IncomingMessage`, received by real HTTP and HTTPS
 * servers on loopback — headers and raw headers as received, the URL for DPoP's `htu` from the socket
 * and `Host` (or the framework's location, or the `origin` option), the query, and the TLS client
 * certificate.
 */
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeRequestLike } from '../src/node.js';
import type { RequestLike } from '../src/types.js';
import { selfSignedCertificate } from './helpers/x509.js';

type View = (incoming: IncomingMessage) => Record<string, unknown>;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** What a view shows, read once per member. */
const read = (view: RequestLike) => ({
  headers: view.headers,
  rawHeaders: view.rawHeaders,
  method: view.method,
  query: view.query instanceof URLSearchParams ? Object.fromEntries(view.query) : view.query,
  body: view.body,
  url: view.url,
  certificate: view.clientCertificate === undefined ? undefined : Buffer.from(view.clientCertificate),
});

function identity(commonName: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const der = selfSignedCertificate(privateKey, publicKey, commonName);
  return {
    der,
    cert: new X509Certificate(der).toString(),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  };
}

/** Serve one request over http (or https with `tls`), answer what `view` shows of it. */
async function serve(view: View, tls?: { cert: string; key: string | Buffer }) {
  const handler = (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(view(req)));
  };
  const server =
    tls === undefined
      ? createServer(handler)
      : createHttpsServer({ ...tls, requestCert: true, rejectUnauthorized: false }, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

function call(
  port: number,
  options: { path?: string; method?: string; headers?: Record<string, string | string[]>; tls?: object } = {},
): Promise<Record<string, unknown>> {
  const send = options.tls === undefined ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/orders?page=2',
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
        rejectUnauthorized: false,
        ...options.tls,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('nodeRequestLike', () => {
  it("shows the message's own headers, raw headers and method, and the query of its target", async () => {
    const port = await serve((req) => {
      const view = nodeRequestLike(req);
      return { ...read(view), same: view.headers === req.headers && view.rawHeaders === req.rawHeaders };
    });
    const seen = await call(port, {
      method: 'DELETE',
      headers: { authorization: ['Bearer a', 'Bearer b'] as never, 'x-trace': '1' },
    });
    expect(seen.same).toBe(true);
    expect(seen.method).toBe('DELETE');
    // Node keeps the first of duplicate `Authorization` headers; the raw headers show both, so core can refuse them.
    expect((seen.headers as Record<string, string>).authorization).toBe('Bearer a');
    expect((seen.rawHeaders as string[]).filter((h) => h.startsWith('Bearer '))).toEqual([
      'Bearer a',
      'Bearer b',
    ]);
    expect(seen.query).toEqual({ page: '2' });
    expect(seen.url).toBe(`http://127.0.0.1:${port}/orders?page=2`);
    expect(seen.certificate).toBeUndefined();
    expect(seen.body).toBeUndefined();
  });

  it('parses no query for a target without one', async () => {
    const port = await serve((req) => ({ query: nodeRequestLike(req).query === undefined }));
    expect(await call(port, { path: '/orders' })).toEqual({ query: true });
    expect(await call(port, { path: '/orders?' })).toEqual({ query: false });
  });

  it('builds the URL from the origin option, whatever the Host header says', async () => {
    const port = await serve((req) => read(nodeRequestLike(req, { origin: 'https://api.example.com' })));
    const seen = await call(port, { headers: { host: 'evil.test' }, path: 'http://evil.test/me?x=1' });
    expect(seen.url).toBe('https://api.example.com/me?x=1');
  });

  it("uses the framework's location, query, headers and body instead of the message's", async () => {
    let located = 0;
    const port = await serve((req) =>
      read(
        nodeRequestLike(req, {
          headers: { ...req.headers, authorization: 'Bearer added' },
          query: { access_token: 'q' },
          body: { access_token: 'b' },
          location: () => {
            located++;
            return { protocol: 'https', host: 'api.example.com:8443', target: '/v1/orders' };
          },
        }),
      ),
    );
    const seen = await call(port);
    expect(located).toBe(1);
    expect((seen.headers as Record<string, string>).authorization).toBe('Bearer added');
    expect(seen.query).toEqual({ access_token: 'q' });
    expect(seen.body).toEqual({ access_token: 'b' });
    expect(seen.url).toBe('https://api.example.com:8443/v1/orders');
  });

  it('reads the location only when the URL is read', async () => {
    let located = 0;
    const port = await serve((req) => {
      const view = nodeRequestLike(req, {
        location: () => {
          located++;
          return { protocol: 'http', host: undefined, target: '/' };
        },
      });
      return { method: view.method, headers: Object.keys(view.headers).length > 0 };
    });
    await call(port);
    expect(located).toBe(0);
  });

  it('has no URL without a Host header (HTTP/1.0), so no DPoP proof can match', async () => {
    const port = await serve((req) => ({
      url: nodeRequestLike(req).url ?? null,
      host: req.headers.host ?? null,
    }));
    const net = await import('node:net');
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.end('GET /me HTTP/1.0\r\n\r\n');
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')[1]!;
    expect(JSON.parse(body)).toEqual({ url: null, host: null });
  });

  it("over TLS: https in the URL and the client's certificate (DER), or none when it sent none", async () => {
    const server = identity('localhost');
    const client = identity('client-alice');
    const port = await serve((req) => read(nodeRequestLike(req)), server);
    const withCertificate = await call(port, { tls: { cert: client.cert, key: client.key } });
    expect(withCertificate.url).toBe(`https://127.0.0.1:${port}/orders?page=2`);
    expect(Buffer.from((withCertificate.certificate as { data: number[] }).data)).toEqual(client.der);
    const without = await call(port, { tls: {} });
    expect(without.certificate).toBeUndefined();
  });
});
