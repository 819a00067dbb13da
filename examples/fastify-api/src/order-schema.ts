/**
 * The Fastify way of validating `POST /orders` bodies: a JSON Schema with the same rules as
 * `parseOrderInput` of `@gatehouse/example-shared/orders` (the other examples call that function).
 *
 * @module
 */
import { ORDER_LIMITS } from '@gatehouse/example-shared/orders';

/**
 * JSON Schema of a `POST /orders` body: exactly `{ item, quantity }`, `item` a string with a
 * non-space character, `quantity` an integer between 1 and {@link ORDER_LIMITS.quantityMax}. Fastify
 * validates bodies against it (with type coercion and removal of extra fields turned off in `createApp`).
 *
 * @example
 * ```ts
 * app.post('/orders', { schema: { body: orderInputSchema } }, handler);
 * ```
 */
export const orderInputSchema = Object.freeze({
  type: 'object',
  required: ['item', 'quantity'],
  additionalProperties: false,
  properties: {
    item: { type: 'string', minLength: 1, maxLength: ORDER_LIMITS.itemMaxLength, pattern: '\\S' },
    quantity: { type: 'integer', minimum: 1, maximum: ORDER_LIMITS.quantityMax },
  },
} as const);
