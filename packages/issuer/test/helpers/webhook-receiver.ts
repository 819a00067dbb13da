/**
 * A webhook receiver on loopback: a real HTTP server that records every delivery (headers and the raw
 * body, as received) and answers with the status `respond` picks for the n-th request (1-based).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedDelivery {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The status it was answered with. */
  readonly status: number;
  /** When it arrived (`Date.now()`). */
  readonly at: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook`. */
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** Resolves once `predicate` holds for the received deliveries (polls; rejects after `timeout` ms). */
  until(predicate: (received: readonly ReceivedDelivery[]) => boolean, timeout?: number): Promise<void>;
  close(): Promise<void>;
}

/** Start a receiver; `respond(n)` is the status of the n-th request (default: 204 for all). */
export async function startWebhookReceiver(
  respond: (n: number) => number | Promise<number> = () => 204,
): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const at = Date.now();
      count += 1;
      const status = await respond(count);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status, at });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async until(predicate, timeout = 15_000) {
      const deadline = Date.now() + timeout;
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(
            `webhook receiver: condition not met after ${timeout} ms (${received.length} received)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Read `read()` until `ok` holds for it (the receiver sees a delivery before the issuer has recorded
 * its outcome); resolves to that value, rejects after `timeout` ms with the last one.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeout = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`not reached after ${timeout} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
