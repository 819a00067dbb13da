/**
 * Loopback ports for tests that must know a port before they listen on it (an issuer's base URL, a
 * child process told where to listen, a database cluster).
 *
 * The usual trick — listen on port 0, read the port, close, listen again later — races: the port comes
 * from the kernel's ephemeral range, where every `listen(0)` and every outgoing connection of every
 * process takes its local port, so in a full test run another file can take it in between (CI saw
 * `EADDRINUSE` on an issuer's port that way). These ports come from below that range, which the kernel
 * never hands out on its own; each vitest worker draws from a block of its own, and a process never
 * hands the same port out twice. What remains is a port some unrelated program already holds, and the
 * bind check below skips it.
 *
 * Written here rather than taken from a library: `get-port` and friends pick from the ephemeral range
 * (or a fixed list) and do not partition by worker.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port the kernel hands out on its own (Linux's default when /proc does not say). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > 20_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const BLOCKS = 8;
/**
 * Above every port the Fetch standard (and so Node's fetch and Chromium) refuses as a "bad port" — the
 * highest is 10080 (`TypeError: fetch failed`, cause `bad port`, as one CI run found).
 */
const FIRST = 11_000;
const blockSize = Math.floor((ephemeralStart() - FIRST) / BLOCKS);
const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? 1);
const blockStart = FIRST + (((Number.isInteger(worker) ? worker : 1) - 1) % BLOCKS) * blockSize;
const handedOut = new Set<number>();

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });

/**
 * A loopback port nobody listens on and no other test in this run will be given.
 *
 * @example
 * const port = await freePort();
 * const issuer = await createIssuer({ baseUrl: `http://127.0.0.1:${port}`, … });
 * await issuer.listen(port, '127.0.0.1');
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < blockSize; tries++) {
    const port = blockStart + Math.floor(Math.random() * blockSize);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free loopback port left in ${blockStart}–${blockStart + blockSize - 1}`);
}
