/**
 * The statement spans of the SQL store, on SQLite and PostgreSQL: inside a recording span each
 * statement is a CLIENT child with the database conventions' attributes and no value of its
 * parameters; a transaction is a `db.transaction` span over its statements; a failed statement is an
 * ERROR span naming the error's class only; outside a recording span nothing is recorded.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../../src/errors.js';
import type { Store } from '../../src/storage/store.js';
import { TRACING_NAMES } from '../../src/tracing/names.js';
import { DRIVERS, openTestStore } from '../helpers/drivers.js';
import { childrenOf, leaks, startTracing, type Tracing } from '../helpers/tracing.js';

describe.each(DRIVERS)('%s', (driver) => {
  let tracing: Tracing;
  let store: Store;

  beforeAll(async () => {
    tracing = startTracing();
    store = await openTestStore(driver);
  });
  afterAll(async () => {
    await store?.close();
    await tracing.stop();
  });
  beforeEach(() => tracing.reset());

  /** Run `fn` in a recording span, as a traced request runs the store. */
  const inRequest = <T>(fn: () => Promise<T>): Promise<T> =>
    trace.getTracer('test').startActiveSpan('request', async (span) => {
      try {
        return await fn();
      } finally {
        span.end();
      }
    });

  it('a statement: a CLIENT child named after its summary, no parameter value', async () => {
    const email = 'dora-secret-address@example.com';
    await inRequest(() =>
      store.users.create({ id: 'usr_dora0000000000000000', username: 'dora', email }, 1_700_000_000),
    );
    await inRequest(() => store.users.get('usr_dora0000000000000000'));
    const all = await tracing.spans();
    const requests = all.filter((span) => span.name === 'request');
    expect(requests).toHaveLength(2);
    const read = childrenOf(all, requests[1]!);
    expect(read.map((span) => span.name)).toEqual(['SELECT users']);
    expect(read[0]!.kind).toBe(SpanKind.CLIENT);
    expect(read[0]!.attributes).toEqual({
      'db.system.name': driver === 'sqlite' ? 'sqlite' : 'postgresql',
      'db.query.summary': 'SELECT users',
      'db.operation.name': 'SELECT',
      'db.collection.name': 'users',
    });
    const write = childrenOf(all, requests[0]!);
    expect(write.length).toBeGreaterThan(0);
    expect(leaks(all, [email, 'usr_dora0000000000000000', 'dora-secret'])).toEqual([]);
  });

  it('a transaction: its statements under a db.transaction span', async () => {
    await inRequest(() =>
      store.transaction(async (tx) => {
        await tx.users.get('usr_x');
        await tx.roles.list({ page: 1, pageSize: 5 });
      }),
    );
    const all = await tracing.spans();
    const request = all.find((span) => span.name === 'request')!;
    const [transaction] = childrenOf(all, request);
    expect(transaction?.name).toBe(TRACING_NAMES.spans.transaction);
    expect(transaction?.kind).toBe(SpanKind.CLIENT);
    const inside = childrenOf(all, transaction!).map((span) => span.name);
    expect(inside).toContain('SELECT users');
    expect(inside.some((name) => name.includes('roles'))).toBe(true);
  });

  it('a failed statement: status ERROR and the class of the error, never its message', async () => {
    await store.users.create({ id: 'usr_erin0000000000000000', username: 'erin' }, 1_700_000_000);
    const clash = inRequest(() =>
      store.users.create({ id: 'usr_erin1111111111111111', username: 'erin' }, 1_700_000_000),
    );
    await expect(clash).rejects.toBeInstanceOf(StoreConflictError);
    const all = await tracing.spans();
    const failed = all.filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failed.length).toBeGreaterThan(0);
    for (const span of failed) {
      expect(span.attributes['error.type']).toBe('StoreConflictError');
      expect(span.status.message).toBeUndefined();
      expect(span.events).toEqual([]);
    }
  });

  it('outside a recording span, statements record nothing', async () => {
    await store.users.get('usr_nobody');
    await store.transaction((tx) => tx.users.get('usr_nobody'));
    expect(await tracing.spans()).toEqual([]);
  });
});
