/**
 * One delivery attempt on the wire (`postWebhook`), against real loopback servers and a resolver the
 * test controls, so no name is looked up and no packet leaves loopback. F13: names resolving to a
 * forbidden address are refused before any connection is made, and the connection goes to the address
 * that was checked (a second answer of the resolver, DNS rebinding, is never used). F14: redirects are
 * not followed, the body is never read, a response head is bounded, one deadline covers the whole
 * attempt. F15: every failure is one of a few generic causes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import {
  type AddressInfo,
  createServer as createTcpServer,
  Socket,
  type Server as TcpServer,
} from 'node:net';
import { generateTestCertificate } from '@gatehouse/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type PostInput, postWebhook, type Resolver } from '../../src/webhooks/egress.js';
import { createTargetPolicy } from '../../src/webhooks/targets.js';

const PUBLIC = createTargetPolicy({ baseUrl: 'https://id.example.com', allowedPrivateTargets: [] });
const LOOPBACK = createTargetPolicy({ baseUrl: 'http://127.0.0.1:3001', allowedPrivateTargets: [] });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const close of closers.splice(0).reverse()) await close();
});

interface Running {
  readonly port: number;
  /** TCP connections accepted so far. */
  readonly connections: () => number;
  readonly requests: IncomingMessage[];
}

async function listen(server: Server | TcpServer, host = '127.0.0.1', port = 0): Promise<Running> {
  let connections = 0;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const requests: IncomingMessage[] = [];
  server.on('request', (req: IncomingMessage) => requests.push(req));
  return { port: (server.address() as AddressInfo).port, connections: () => connections, requests };
}

const serve = (handler: (req: IncomingMessage, res: ServerResponse) => void, host?: string, port?: number) =>
  listen(createServer(handler), host, port);

/** A resolver answering from `answers` (a name → addresses), counting its calls. */
function resolver(answers: (host: string, call: number) => string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    return answers(host, calls.length).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

const input = (url: string, overrides: Partial<PostInput> = {}): PostInput => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{"id":"evt_1"}',
  policy: LOOPBACK,
  resolve: resolver(() => {
    throw new Error('no name is resolved in this test');
  }),
  timeout: 5_000,
  stop: new AbortController().signal,
  maxResponseHeaderBytes: 8_192,
  ...overrides,
});

const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(204).end();

describe('F13: targets checked at delivery', () => {
  it('F13: a name resolving to a private, link-local, mapped, unspecified or metadata address is refused before any connection', async () => {
    const receiver = await serve(ok);
    // Not even a failing test may send a packet beyond loopback: any connection attempt throws here.
    const connect = vi.spyOn(Socket.prototype, 'connect').mockImplementation(() => {
      throw new Error('no connection may be made in this test');
    });
    for (const addresses of [
      ['10.0.0.1'],
      ['169.254.169.254'],
      ['::ffff:127.0.0.1'],
      ['127.0.0.1'],
      ['fd00:ec2::254'],
      ['0.0.0.0'],
      ['::ffff:a9fe:a9fe'],
      ['64:ff9b::a00:1'],
      ['fe80::1'],
      // One forbidden address among public ones is enough.
      ['93.184.215.14', '192.168.0.10'],
    ]) {
      const resolve = resolver(() => addresses);
      const result = await postWebhook(
        input(`http://hooks.test:${receiver.port}/hook`, { policy: PUBLIC, resolve }),
      );
      expect(result, addresses.join()).toEqual({
        outcome: 'failed',
        status: null,
        cause: 'address not allowed',
      });
      expect(resolve.calls).toEqual(['hooks.test']);
    }
    expect(connect).not.toHaveBeenCalled();
    expect(receiver.connections()).toBe(0);
  });

  it('F13: an address literal that is not allowed is refused at delivery too (a URL registered under other rules)', async () => {
    const receiver = await serve(ok);
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const result = await postWebhook(input(`http://${host}:${receiver.port}/hook`, { policy: PUBLIC }));
      expect(result, host).toMatchObject({ outcome: 'failed', cause: 'address not allowed' });
    }
    expect(receiver.connections()).toBe(0);
    // Under the rules of an issuer on loopback, the same receiver is reached.
    expect(await postWebhook(input(`http://127.0.0.1:${receiver.port}/hook`))).toEqual({
      outcome: 'delivered',
      status: 204,
    });
  });

  it('F13: the connection is made to the checked address, never to a second answer (DNS rebinding)', async () => {
    // Only 127.0.0.1 is allowed (listed); the name later "rebinds" to 127.0.0.2, which is not.
    const policy = createTargetPolicy({
      baseUrl: 'https://id.example.com',
      allowedPrivateTargets: ['127.0.0.1'],
    });
    const allowed = await serve(ok, '127.0.0.1');
    const rebound = await serve(ok, '127.0.0.2', allowed.port);
    const resolve = resolver((_host, call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
    const url = `http://hooks.test:${allowed.port}/hook?x=1`;

    expect(await postWebhook(input(url, { policy, resolve }))).toEqual({ outcome: 'delivered', status: 204 });
    expect(resolve.calls).toEqual(['hooks.test']);
    expect(allowed.requests).toHaveLength(1);
    // The name stays the request's: Host header (and SNI on https) are the name, not the address.
    expect(allowed.requests[0]!.headers.host).toBe(`hooks.test:${allowed.port}`);
    expect(allowed.requests[0]!.url).toBe('/hook?x=1');

    // The next attempt resolves again, gets the rebound address, and is refused.
    expect(await postWebhook(input(url, { policy, resolve }))).toMatchObject({
      cause: 'address not allowed',
    });
    expect(resolve.calls).toHaveLength(2);
    expect(rebound.connections()).toBe(0);
  });

  it('F13: a listed host name may resolve to private addresses; the allowed answer is used', async () => {
    const policy = createTargetPolicy({
      baseUrl: 'https://id.example.com',
      allowedPrivateTargets: ['siem.test'],
    });
    const receiver = await serve(ok);
    const resolve = resolver(() => ['127.0.0.1']);
    expect(await postWebhook(input(`http://siem.test:${receiver.port}/`, { policy, resolve }))).toEqual({
      outcome: 'delivered',
      status: 204,
    });
    expect(receiver.requests[0]!.headers.host).toBe(`siem.test:${receiver.port}`);
  });
});

describe('F14: redirects, bounded reads, one deadline', () => {
  it('F14: a redirect is never followed: the 3xx is the failed attempt', async () => {
    const elsewhere = await serve(ok);
    const receiver = await serve((_req, res) =>
      res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/hook` }).end(),
    );
    expect(await postWebhook(input(`http://127.0.0.1:${receiver.port}/hook`))).toEqual({
      outcome: 'failed',
      status: 307,
      cause: 'http 307',
    });
    expect(elsewhere.connections()).toBe(0);
  });

  it('F14: the body of the answer is never read: an endless body does not hold the attempt', async () => {
    let closed!: () => void;
    const dropped = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const receiver = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', closed);
      pump();
    });
    // The deadline is far away: only not reading the body makes the attempt end before it.
    const result = await postWebhook(input(`http://127.0.0.1:${receiver.port}/hook`, { timeout: 60_000 }));
    expect(result).toEqual({ outcome: 'delivered', status: 200 });
    await dropped; // the issuer closed the connection instead of reading on
  });

  it('F14: a response head larger than the bound is a failed attempt, not read on', async () => {
    const big = (size: number) =>
      serve((_req, res) => res.writeHead(200, { 'x-padding': 'a'.repeat(size) }).end());
    const small = await big(1_000);
    expect(await postWebhook(input(`http://127.0.0.1:${small.port}/`))).toMatchObject({
      outcome: 'delivered',
    });
    const large = await big(20_000);
    expect(await postWebhook(input(`http://127.0.0.1:${large.port}/`))).toMatchObject({
      outcome: 'failed',
      cause: 'connection failed',
    });
  });

  it('F14: one deadline covers the attempt: a silent receiver, a trickling one and a hanging resolver all time out', async () => {
    const silent = await serve(() => undefined);
    const trickle = await listen(
      createTcpServer((socket) => {
        socket.on('error', () => undefined);
        socket.write('HTTP/1.1 200 OK\r\n');
        const timer = setInterval(() => socket.write('x-slow: 1\r\n'), 20);
        socket.on('close', () => clearInterval(timer));
      }),
    );
    const hanging: Resolver = () => new Promise(() => undefined);
    const cases = [
      input(`http://127.0.0.1:${silent.port}/`, { timeout: 300 }),
      input(`http://127.0.0.1:${trickle.port}/`, { timeout: 300 }),
      input('http://hooks.test/', { timeout: 300, resolve: hanging }),
    ];
    for (const attempt of cases) {
      const started = Date.now();
      expect(await postWebhook(attempt)).toEqual({ outcome: 'failed', status: null, cause: 'timeout' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    }
  });

  it('an attempt cut short by the issuer closing is "stopped", not a failure', async () => {
    const silent = await serve(() => undefined);
    const stop = new AbortController();
    const pending = postWebhook(input(`http://127.0.0.1:${silent.port}/`, { stop: stop.signal }));
    await vi.waitFor(() => expect(silent.connections()).toBe(1));
    stop.abort();
    expect(await pending).toEqual({ outcome: 'stopped' });
  });
});

describe('F15: generic causes', () => {
  it('F15: refused connection, reset, TLS failures, DNS failure and HTTP errors are recorded generically', async () => {
    // A port nobody listens on: bind one, note it, close it.
    const probe = await listen(createTcpServer());
    await closers.pop()!();
    const plain = await serve(ok);
    const reset = await listen(createTcpServer((socket) => socket.destroy()));
    const failing = await serve((_req, res) => res.writeHead(500).end('stack trace here'));
    const certificate = await generateTestCertificate({
      commonName: 'localhost',
      hosts: ['127.0.0.1', 'localhost'],
    });
    const untrusted = await listen(
      createTlsServer({ key: certificate.privateKey, cert: certificate.certificate }, ok),
    );
    const nowhere: Resolver = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND hooks.test'), { code: 'ENOTFOUND' }));

    const cases: Array<[PostInput, object]> = [
      [input(`http://127.0.0.1:${probe.port}/`), { cause: 'connection failed', code: 'ECONNREFUSED' }],
      [input(`http://127.0.0.1:${reset.port}/`), { cause: 'connection failed' }],
      [input(`https://127.0.0.1:${plain.port}/`), { cause: 'tls' }],
      [input(`https://127.0.0.1:${untrusted.port}/`), { cause: 'tls' }],
      [input('http://hooks.test/', { resolve: nowhere }), { cause: 'connection failed', code: 'ENOTFOUND' }],
      [input(`http://127.0.0.1:${failing.port}/`), { cause: 'http 500', status: 500 }],
    ];
    for (const [attempt, expected] of cases) {
      const result = await postWebhook(attempt);
      expect(result, attempt.url).toMatchObject({ outcome: 'failed', ...expected });
      // The low-level code is for the log only; the cause never carries it.
      expect(['connection failed', 'tls', 'http 500']).toContain((result as { cause: string }).cause);
    }
  });
});
