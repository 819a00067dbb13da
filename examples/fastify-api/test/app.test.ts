/**
 * The orders API on Fastify, served on loopback: the shared suite of `@gatehouse/example-shared`
 * (scopes, 401/403, audit lines, JSON errors) runs against it. Fastify validates bodies with a JSON
 * Schema (src/order-schema.ts), so its refusal texts are Ajv's.
 */
import { describeOrdersApi } from '@gatehouse/example-shared/suite';
import { createApp } from '../src/app.ts';

describeOrdersApi({
  async start(options) {
    const app = await createApp(options);
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return { base, close: () => app.close() };
  },
  refusals: {
    missingQuantity: 'quantity',
    item: 'item',
    extraField: 'additional properties',
    array: 'object',
  },
});
