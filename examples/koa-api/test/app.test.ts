/**
 * The orders API on Koa 3, served on loopback: the shared suite of `@gatehouse/example-shared`
 * (scopes, 401/403, audit lines, JSON errors) runs against it.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describeOrdersApi } from '@gatehouse/example-shared/suite';
import { createApp } from '../src/app.ts';

describeOrdersApi({
  async start(options) {
    const server = createApp(options).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(() => resolve()));
      },
    };
  },
});
