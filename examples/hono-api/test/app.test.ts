/**
 * The orders API on Hono served by `@hono/node-server` on loopback: the shared suite of
 * `@gatehouse/example-shared` (scopes, 401/403, audit lines, JSON errors) runs against it. The Hono app
 * sets no body limit (the runtime in front of it does), so the 413 case is not declared.
 */
import type { AddressInfo } from 'node:net';
import { describeOrdersApi } from '@gatehouse/example-shared/suite';
import { serve } from '@hono/node-server';
import { createApp } from '../src/app.ts';

describeOrdersApi({
  async start(options) {
    const app = createApp(options);
    let close: () => Promise<void> = async () => {};
    const base = await new Promise<string>((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      );
      close = () => new Promise((done) => server.close(() => done()));
    });
    return { base, close };
  },
  bodyLimit: false,
});
