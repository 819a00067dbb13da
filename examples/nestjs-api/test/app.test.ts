/**
 * The orders API on NestJS, on both platforms (Express and Fastify), listening on loopback: the shared
 * suite of `@gatehouse/example-shared` (scopes, 401/403, audit lines, JSON errors) runs against each.
 * Nest's platforms parse the body before guards run, so the "token checked before the body" case is not
 * declared.
 */
import type { AddressInfo } from 'node:net';
import { describeOrdersApi } from '@gatehouse/example-shared/suite';
import { describe } from 'vitest';
import { createApp } from '../src/app.ts';

describe.each(['express', 'fastify'] as const)('orders API on NestJS (%s)', (platform) => {
  describeOrdersApi({
    async start(options) {
      const app = await createApp({ ...options, platform });
      await app.listen(0, '127.0.0.1');
      return {
        base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`,
        close: () => app.close(),
      };
    },
    authBeforeBody: false,
  });
});
