/**
 * Listening: `issuer.listen()` on a taken port rejects with a one-line ListenError; `serve()` answers on
 * a server bound before `createIssuer()`, and `close()` closes it; while it starts, such a server already
 * answers the liveness probe (`200`), and the readiness probe `503`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ListenError } from '../src/errors.js';
import { bindServer } from '../src/internal/listen.js';
import { createIssuer } from '../src/server.js';

const quiet = { level: 'silent' as const };

describe('listening', () => {
  it('a taken port is a ListenError that says what to change', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const issuer = await createIssuer({ baseUrl: 'http://127.0.0.1:1', database: ':memory:', log: quiet });
    try {
      const err = await issuer.listen(port, '127.0.0.1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ListenError);
      expect(err).toMatchObject({ code: 'EADDRINUSE', port, host: '127.0.0.1' });
      expect((err as Error).message).toBe(
        `port ${port} on 127.0.0.1 is already in use: stop what uses it, or pick another port with the "port" option`,
      );
      const cli = await bindServer(port, '127.0.0.1', { port: '--port N', host: '--host' }).catch((e) => e);
      expect((cli as Error).message).toContain('pick another port with --port N');
      const foreign = await bindServer(0, '192.0.2.1').catch((e: unknown) => e);
      expect(foreign).toMatchObject({ code: 'EADDRNOTAVAIL' });
      expect((foreign as Error).message).toBe(
        'cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine; pick another host with the "host" option',
      );
    } finally {
      await issuer.close();
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('serves on a server bound first (503 "starting" until then), and closes it', async () => {
    const server = await bindServer(0, '127.0.0.1');
    const early = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/health`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toEqual({ status: 'starting' });
    const issuer = await createIssuer({ baseUrl: 'http://127.0.0.1:1', database: ':memory:', log: quiet });
    const address = issuer.serve(server);
    expect(address.port).toBe((server.address() as AddressInfo).port);
    expect((await fetch(`http://127.0.0.1:${address.port}/health`)).status).toBe(200);
    await issuer.close();
    expect(server.listening).toBe(false);
    expect(() => issuer.serve(server)).toThrow('the issuer is closed');
  });

  it('while starting, the liveness probe answers 200 and readiness 503; then the issuer answers both', async () => {
    const server = await bindServer(0, '127.0.0.1', undefined, '/auth/health/live');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const live = await fetch(`${url}/auth/health/live`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${url}/auth/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'starting' }]);
    const issuer = await createIssuer({ baseUrl: `${url}/auth`, database: ':memory:', log: quiet });
    try {
      issuer.serve(server);
      expect((await fetch(`${url}/auth/health/live`)).status).toBe(200);
      expect((await fetch(`${url}/auth/health/ready`)).status).toBe(200);
      expect((await fetch(`${url}/health/ready`)).status).toBe(404);
    } finally {
      await issuer.close();
    }
  });
});
