/**
 * The tests' port picker (test/support/ports.ts): ports fetch accepts (none of the Fetch standard's
 * "bad ports", whose highest is 10080), below the kernel's ephemeral range, never handed out twice, and
 * really free — a server listens on one and fetch reaches it.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { expect, it } from 'vitest';
import { freePort } from './support/ports.js';

const ephemeral = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

it('picks distinct ports above the bad ports and below the ephemeral range', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 300; i++) ports.push(await freePort());
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(port).toBeGreaterThan(10_080);
    expect(port).toBeLessThan(ephemeral);
  }
});

it('gives a port a server can listen on and fetch can reach', async () => {
  const port = await freePort();
  const server = createServer((_req, res) => res.end('here'));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  try {
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('here');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
