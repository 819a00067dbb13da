import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PortInUseError, startWorld } from '../src/world.ts';

describe('startWorld', () => {
  it('refuses a busy port before starting anything, and leaves no server listening', async () => {
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const free: Server = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const released = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    try {
      const err = await startWorld({ ports: { issuer: released, api: 0, backend: port, console: 0 } }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PortInUseError);
      expect(err).toMatchObject({ server: 'backend', port });
      expect((err as Error).message).toBe(
        `port ${port} (backend) is already in use: stop what uses it, or pick another with --backend-port N or DEMO_BACKEND_PORT=N`,
      );
      // The issuer's port, bound first, was released again.
      const again: Server = createServer();
      await new Promise<void>((resolve, reject) => {
        again.once('error', reject);
        again.listen(released, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => again.close(resolve));
    } finally {
      busy.close();
    }
  });
});
