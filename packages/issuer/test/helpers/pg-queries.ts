/**
 * Round trips to PostgreSQL while a request runs, counted at the `pg` client (every `query` a
 * connection sends is one round trip) — but the webhook dispatcher's poll, which runs on its own every
 * `DEFAULTS.webhooks.pollInterval` and would otherwise be counted whenever it falls inside the window.
 * In tests that queue no delivery, a poll is its one "anything due?" read.
 */
import pg from 'pg';
import { vi } from 'vitest';

/** The webhook dispatcher's poll (`storage/sql/webhooks.ts`, `ANY_DUE`). */
const WEBHOOK_POLL = /^SELECT 1 AS due FROM webhook_deliveries/;

/** The statements sent while `request` runs (but the webhook poll), and its result. */
export async function countedQueries<T>(
  request: () => Promise<T>,
): Promise<{ result: T; queries: string[] }> {
  const queries: string[] = [];
  const original = pg.Client.prototype.query;
  vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === 'string' ? config : String(config.text);
    if (!WEBHOOK_POLL.test(text)) queries.push(text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never);
  try {
    return { result: await request(), queries };
  } finally {
    vi.restoreAllMocks();
  }
}
