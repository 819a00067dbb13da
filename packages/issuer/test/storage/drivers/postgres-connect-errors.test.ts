/**
 * A PostgreSQL database that cannot be reached at start is one line naming the database (never its
 * password), what went wrong and what to check (issue #29 item 4): against the test cluster on loopback
 * — a port nothing listens on, a database that does not exist, a user that does not exist — and, for
 * what a test must not cause (DNS lookups, timeouts, TLS), the translation of the errors `pg` reports.
 */
import { describe, expect, inject, it } from 'vitest';
import { DatabaseConnectionError } from '../../../src/errors.js';
import { openPostgresStore } from '../../../src/storage/drivers/postgres.js';
import { connectionError } from '../../../src/storage/drivers/postgres-connect-errors.js';
import { freePort } from '../../helpers/issuer.js';

/** The test cluster's URL with `change` applied (user, password, port, database). */
function clusterUrl(change: (url: URL) => void): string {
  const url = new URL(inject('postgresUrl'));
  change(url);
  return url.href;
}

async function failureOf(url: string): Promise<DatabaseConnectionError> {
  const store = openPostgresStore(url, { connectionTimeout: 5_000 });
  try {
    const error = await store.migrate().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    return error as DatabaseConnectionError;
  } finally {
    await store.close();
  }
}

describe('a PostgreSQL database that cannot be reached', () => {
  it('nothing listens on the port: refused, naming host and port', async () => {
    const port = await freePort();
    const url = clusterUrl((u) => {
      u.port = String(port);
      u.password = 'hunter2-secret';
    });
    const error = await failureOf(url);
    expect(error.reason).toBe('refused');
    expect(error.message).toBe(
      `cannot connect to the PostgreSQL database ${error.database}: connection refused at 127.0.0.1:${port} — is PostgreSQL running and listening there? Check the host and port of the database URL.`,
    );
    expect(error.database).toContain('***');
    expect(error.message).not.toContain('hunter2');
  });

  it('the database does not exist: names it and how to create it', async () => {
    const error = await failureOf(clusterUrl((u) => void (u.pathname = '/gatehous')));
    expect(error.reason).toBe('database_missing');
    expect(error.detail).toMatch(
      /^database "gatehous" does not exist on 127\.0\.0\.1:\d+ — create it \(createdb gatehous\) or correct the name at the end of the database URL\.$/,
    );
  });

  it('the user does not exist: names the user, never a password', async () => {
    const error = await failureOf(
      clusterUrl((u) => {
        u.username = 'nobody_here';
        u.password = 'hunter2-secret';
      }),
    );
    expect(error.reason).toBe('authentication');
    expect(error.detail).toMatch(
      /^PostgreSQL refused user "nobody_here" \(.+\) — check the user and password of the database URL\.$/,
    );
    expect(error.message).not.toContain('hunter2');
  });

  it('the errors pg reports that a test must not cause are translated too; others pass through', () => {
    const url = 'postgres://app:pw@db.example.internal:6543/gatehouse';
    const as = (err: object) => connectionError(url, err) as DatabaseConnectionError;
    expect(as({ code: 'ENOTFOUND' })).toMatchObject({
      reason: 'host_not_found',
      detail: 'host db.example.internal not found — check the host name of the database URL.',
      database: 'postgres://app:***@db.example.internal:6543/gatehouse',
    });
    expect(as({ message: 'timeout expired' }).reason).toBe('timeout');
    expect(as({ code: 'ETIMEDOUT' }).detail).toContain('db.example.internal:6543');
    expect(as({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })).toMatchObject({ reason: 'tls' });
    expect(as({ code: '28P01' }).detail).toContain('"app" (wrong password)');
    const unrelated = Object.assign(new Error('syntax error'), { code: '42601' });
    expect(connectionError(url, unrelated)).toBe(unrelated);
  });
});
