/**
 * Loopback servers for the suite: listen on a chosen (or free) port, close with every open connection,
 * and a teardown list that stops everything a test file started, in reverse order, pass or fail.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening loopback server. */
export interface Listening {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Listen on 127.0.0.1 (`port` 0: a free one). */
export async function listen(handler: RequestListener, port = 0): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A redirect target on loopback that answers every request `200 back` (text/plain): where the browser
 * lands after sign-in, its URL carrying the authorization response.
 */
export function listenCallback(): Promise<Listening> {
  return listen((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('back'));
}

/** What a test file started, stopped in reverse order by `run()` (each step even if another failed). */
export class Teardown {
  readonly #steps: (() => unknown)[] = [];

  /** Register `step`; returns `value` for chaining (`const x = teardown.add(await start(), () => x.close())`). */
  add<T>(value: T, step: (value: T) => unknown): T {
    this.#steps.push(() => step(value));
    return value;
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'teardown failed');
  }
}
