import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchFailure, type FetchLimits, fetchJson } from '../../src/internal/fetch.js';
import { json, refusedOrigin, startServer, status, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let target: TestServer;
const resets = { once: 0, always: 0 };

beforeAll(async () => {
  target = await startServer({ '/jwks': json({ keys: [] }) });
  server = await startServer({
    '/ok': (req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ accept: req.headers.accept }));
    },
    '/500': status(500),
    '/404': status(404),
    '/redirect': status(302, { location: `${target.origin}/jwks` }),
    '/not-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": ['),
    '/hang': () => {},
    // A connection closed before any response, as a server closing an idle kept-alive socket does.
    '/reset-once': (req, res) => {
      if (resets.once++ === 0) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}');
    },
    '/reset-always': (req) => {
      resets.always++;
      req.socket.destroy();
    },
    '/stall-body': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys": [');
    },
    '/big-declared': (_req, res) => {
      // Declares 10 MB but sends nothing: only the header can have caused the rejection.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.flushHeaders();
    },
    '/big-chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('error', () => {});
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    },
  });
});
afterAll(async () => {
  await server.close();
  await target.close();
});

const limits = (overrides: Partial<FetchLimits> = {}): FetchLimits => ({
  fetch: (input, init) => globalThis.fetch(input, init),
  timeout: 1_000,
  maxResponseBytes: 64 * 1024,
  allowInsecureHttp: false,
  ...overrides,
});

/** The FetchFailure `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<FetchFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchFailure);
  return error as FetchFailure;
}

describe('fetchJson', () => {
  it('parses a 200 JSON response and sends the accept header', async () => {
    await expect(
      fetchJson(new URL(`${server.origin}/ok`), limits(), 'application/jwk-set+json'),
    ).resolves.toEqual({
      accept: 'application/jwk-set+json',
    });
  });

  it('reports a non-200 status with the status code', async () => {
    const e500 = await failure(fetchJson(new URL(`${server.origin}/500`), limits()));
    expect(e500.status).toBe(500);
    const e404 = await failure(fetchJson(new URL(`${server.origin}/404`), limits()));
    expect(e404.status).toBe(404);
  });

  it('does not follow a redirect, not even to another loopback host', async () => {
    const before = target.total();
    const error = await failure(fetchJson(new URL(`${server.origin}/redirect`), limits()));
    expect(error.message).toMatch(/redirect/);
    expect(error.status).toBe(302);
    expect(target.total()).toBe(before);
  });

  it('rejects a response that a custom fetch obtained by following a redirect', async () => {
    const following: typeof fetch = (input, init) => globalThis.fetch(input, { ...init, redirect: 'follow' });
    const error = await failure(
      fetchJson(new URL(`${server.origin}/redirect`), limits({ fetch: following })),
    );
    expect(error.message).toMatch(/redirect/);
  });

  it('refuses http: to a non-loopback host and other schemes without sending a request', async () => {
    let calls = 0;
    const spy: typeof fetch = async () => {
      calls++;
      return Response.json({ keys: [] });
    };
    for (const url of [
      'http://jwks.example.com/keys',
      'http://10.0.0.1/keys',
      'ftp://example.com/keys',
      'file:///etc/passwd',
    ]) {
      const error = await failure(fetchJson(new URL(url), limits({ fetch: spy })));
      expect(error.message).toMatch(/https/);
    }
    expect(calls).toBe(0);
    // https: and loopback http: are allowed; allowInsecureHttp opens http: everywhere.
    await expect(
      fetchJson(new URL('https://jwks.example.com/keys'), limits({ fetch: spy })),
    ).resolves.toEqual({ keys: [] });
    await expect(fetchJson(new URL('http://localhost:1/keys'), limits({ fetch: spy }))).resolves.toEqual({
      keys: [],
    });
    await expect(
      fetchJson(new URL('http://jwks.example.com/keys'), limits({ fetch: spy, allowInsecureHttp: true })),
    ).resolves.toEqual({ keys: [] });
    expect(calls).toBe(3);
  });

  it('times out when no response arrives', async () => {
    const started = performance.now();
    const error = await failure(fetchJson(new URL(`${server.origin}/hang`), limits({ timeout: 150 })));
    expect(error.message).toBe('no response within 150 ms');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('times out when the body stalls after the headers', async () => {
    const error = await failure(fetchJson(new URL(`${server.origin}/stall-body`), limits({ timeout: 150 })));
    expect(error.message).toBe('no response within 150 ms');
  });

  it('times out even when a custom fetch ignores the abort signal', async () => {
    const deaf: typeof fetch = () => new Promise<Response>(() => {});
    const started = performance.now();
    const error = await failure(
      fetchJson(new URL('https://jwks.example.com/keys'), limits({ fetch: deaf, timeout: 100 })),
    );
    expect(error.message).toBe('no response within 100 ms');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('times out when a custom fetch returns a body that never ends', async () => {
    const endless: typeof fetch = async () =>
      new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{')) }), {
        status: 200,
      });
    const error = await failure(
      fetchJson(new URL('https://jwks.example.com/keys'), limits({ fetch: endless, timeout: 100 })),
    );
    expect(error.message).toBe('no response within 100 ms');
  });

  it('rejects a declared Content-Length above the cap before reading the body', async () => {
    const started = performance.now();
    const error = await failure(
      fetchJson(new URL(`${server.origin}/big-declared`), limits({ timeout: 5_000 })),
    );
    expect(error.message).toBe(`response larger than ${64 * 1024} bytes`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('stops reading a chunked 10 MB body at the cap', async () => {
    const error = await failure(fetchJson(new URL(`${server.origin}/big-chunked`), limits()));
    expect(error.message).toBe(`response larger than ${64 * 1024} bytes`);
  });

  it('accepts a body of exactly the cap and refuses one byte more', async () => {
    const body = (size: number) => `{"a":"${'x'.repeat(size - 8)}"}`;
    const serve =
      (text: string): typeof fetch =>
      async () =>
        new Response(text, { status: 200 });
    const url = new URL('https://jwks.example.com/keys');
    const exact = body(1_000);
    expect(exact.length).toBe(1_000);
    await expect(fetchJson(url, limits({ fetch: serve(exact), maxResponseBytes: 1_000 }))).resolves.toEqual({
      a: 'x'.repeat(992),
    });
    await failure(fetchJson(url, limits({ fetch: serve(body(1_001)), maxResponseBytes: 1_000 })));
  });

  it('rejects a body that is not JSON', async () => {
    const error = await failure(fetchJson(new URL(`${server.origin}/not-json`), limits()));
    expect(error.message).toBe('the response is not JSON');
    expect(error.code).toBe('not_json');
  });

  it('reports a refused connection and a throwing custom fetch as request failures', async () => {
    const refused = await failure(fetchJson(new URL(`${await refusedOrigin()}/jwks`), limits()));
    expect(refused.message).toBe('request failed (ECONNREFUSED)');
    expect(refused.code).toBe('connection_failed');
    const throwing: typeof fetch = () => {
      throw new Error('boom');
    };
    const thrown = await failure(
      fetchJson(new URL('https://jwks.example.com/keys'), limits({ fetch: throwing })),
    );
    expect(thrown.message).toBe('request failed');
    expect(thrown.code).toBe('connection_failed');
  });
});

describe('fetchJson on a reset connection', () => {
  it('sends the GET once more when the connection is closed before any response', async () => {
    await expect(
      fetchJson(new URL(`${server.origin}/reset-once`), limits({ allowInsecureHttp: true })),
    ).resolves.toEqual({ keys: [] });
    expect(resets.once).toBe(2);
  });

  it('retries only once: a server that always resets is a request failure', async () => {
    const error = await failure(
      fetchJson(new URL(`${server.origin}/reset-always`), limits({ allowInsecureHttp: true })),
    );
    expect(error.code).toBe('connection_failed');
    expect(resets.always).toBe(2);
  });
});

describe('fetchJson under msw', () => {
  // msw 2.x: cancelling an unread mocked body never settles (mswjs/interceptors#799); nothing may await it.
  it('fails fast on a mocked 5xx with a body instead of hanging', async () => {
    const { http, HttpResponse } = await import('msw');
    const { setupServer } = await import('msw/node');
    const server = setupServer(
      http.get('https://issuer.msw.test/jwks', () => HttpResponse.text('<h1>down</h1>', { status: 500 })),
    );
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const started = Date.now();
      const failure = await fetchJson(new URL('https://issuer.msw.test/jwks'), {
        fetch: (input, init) => globalThis.fetch(input, init),
        timeout: 5_000,
        maxResponseBytes: 1024,
        allowInsecureHttp: false,
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(FetchFailure);
      expect((failure as FetchFailure).status).toBe(500);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.close();
    }
  });
});
