/**
 * The orders domain, free of any framework, shared by every example API: an in-memory store (one per
 * app instance) and the validation of `POST /orders` bodies. No Node built-in (`crypto.randomUUID` is
 * global on every runtime), so the same module runs on Node, Bun, Deno and workerd.
 *
 * @module
 */

/** One order. `owner` is the customer (`sub`); `createdBy` is who placed it (the actor under impersonation). */
export interface Order {
  readonly id: string;
  readonly item: string;
  readonly quantity: number;
  readonly owner: string;
  readonly createdBy: string;
  readonly createdAt: string;
}

/** A validated `POST /orders` body. */
export interface OrderInput {
  readonly item: string;
  readonly quantity: number;
}

/** Outcome of {@link parseOrderInput}: the input, or why it was refused (safe to send back to the client). */
export type ParseResult =
  | { readonly ok: true; readonly value: OrderInput }
  | { readonly ok: false; readonly error: string };

/** Limits of a valid order. */
export const ORDER_LIMITS = Object.freeze({
  /** Longest item name, in characters. */
  itemMaxLength: 200,
  /** Largest quantity of one order. */
  quantityMax: 1000,
});

/**
 * Validate a parsed JSON body: exactly `{ item, quantity }`, `item` a non-empty string, `quantity` an
 * integer between 1 and {@link ORDER_LIMITS.quantityMax}. Error messages never echo the input.
 *
 * @example
 * ```ts
 * parseOrderInput({ item: 'coffee', quantity: 2 }); // { ok: true, value: { item: 'coffee', quantity: 2 } }
 * parseOrderInput({ item: 'coffee' }); // { ok: false, error: '"quantity" must be an integer between 1 and 1000' }
 * ```
 */
export function parseOrderInput(body: unknown): ParseResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, error: 'body must be a JSON object { item, quantity }' };
  }
  const { item, quantity, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return { ok: false, error: 'only "item" and "quantity" are allowed' };
  if (typeof item !== 'string' || item.trim() === '' || item.length > ORDER_LIMITS.itemMaxLength) {
    return {
      ok: false,
      error: `"item" must be a non-empty string of at most ${ORDER_LIMITS.itemMaxLength} characters`,
    };
  }
  if (
    typeof quantity !== 'number' ||
    !Number.isInteger(quantity) ||
    quantity < 1 ||
    quantity > ORDER_LIMITS.quantityMax
  ) {
    return { ok: false, error: `"quantity" must be an integer between 1 and ${ORDER_LIMITS.quantityMax}` };
  }
  return { ok: true, value: { item: item.trim(), quantity } };
}

/**
 * In-memory orders, kept per owner. Each app instance has its own store.
 *
 * @example
 * ```ts
 * const store = new OrderStore();
 * const order = store.create('customer-42', { item: 'coffee', quantity: 2 }, 'support-7');
 * store.list('customer-42'); // [order]
 * store.delete('customer-42', order.id); // true
 * ```
 */
export class OrderStore {
  readonly #orders = new Map<string, Order>();

  /** The owner's orders, oldest first. */
  list(owner: string): Order[] {
    return [...this.#orders.values()].filter((order) => order.owner === owner);
  }

  /** Place an order for `owner`, placed by `createdBy` (the owner, or the actor under impersonation). */
  create(owner: string, input: OrderInput, createdBy: string): Order {
    const order: Order = Object.freeze({
      id: crypto.randomUUID(),
      item: input.item,
      quantity: input.quantity,
      owner,
      createdBy,
      createdAt: new Date().toISOString(),
    });
    this.#orders.set(order.id, order);
    return order;
  }

  /** Delete one of the owner's orders. `false` when there is no such order (or it belongs to someone else). */
  delete(owner: string, id: string): boolean {
    const order = this.#orders.get(id);
    if (order === undefined || order.owner !== owner) return false;
    return this.#orders.delete(id);
  }
}

/**
 * Whose orders a token works on: its `sub`, or for a token without one (machine-to-machine), its
 * client, in a separate `client:` namespace so a client id can never pose as a user.
 *
 * @example
 * ```ts
 * ownerOf({ subject: 'customer-42', clientId: 'web' }); // 'customer-42'
 * ownerOf({ subject: undefined, clientId: 'billing-job' }); // 'client:billing-job'
 * ```
 */
export function ownerOf(auth: {
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
}): string {
  return auth.subject ?? `client:${auth.clientId ?? 'unknown'}`;
}
