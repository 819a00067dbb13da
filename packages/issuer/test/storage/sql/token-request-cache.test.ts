/**
 * The kept client-credentials reads: the unit (when a read is kept, reused and dropped) over a counting
 * inner store, then on each driver for real — a change through the store, through another store on the
 * same database (another process on the SQLite file, another instance on PostgreSQL) and by plain SQL
 * (an operator) is seen by the next read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../../src/config/defaults.js';
import type { ConfigChanges } from '../../../src/storage/config-changes.js';
import { openStore } from '../../../src/storage/open.js';
import { cachedTokenRequests } from '../../../src/storage/sql/token-request-cache.js';
import type { Store } from '../../../src/storage/store.js';
import type {
  TokenRequestQuery,
  TokenRequestRecords,
  TokenRequestStore,
} from '../../../src/storage/tables/token-requests.js';
import { DRIVERS, type Driver, freshPostgresUrl } from '../../helpers/drivers.js';

const INDICATOR = 'https://orders.example.com';
const cc = (applicationId = 'app_m'): TokenRequestQuery => ({
  now: 1,
  applicationId,
  indicator: INDICATOR,
  scopesOf: 'application',
});

/**
 * Migrate `store` and give it an M2M application whose role grants `read` of the Orders resource (the
 * resource also has `write`, granted by no one).
 */
async function seedWorld(store: Store): Promise<void> {
  await store.migrate();
  await store.resources.create({ id: 'res_o', name: 'Orders', indicator: INDICATOR, accessTokenTtl: 60 }, 1);
  await store.resources.createScope({ id: 'scp_r', resourceId: 'res_o', name: 'read' }, 1);
  await store.resources.createScope({ id: 'scp_w', resourceId: 'res_o', name: 'write' }, 1);
  await store.roles.create({ id: 'rol_m', name: 'service', type: 'MachineToMachine' }, 1);
  await store.roles.addScopes('rol_m', ['scp_r']);
  await store.applications.create(
    {
      id: 'app_m',
      name: 'M',
      type: 'MachineToMachine',
      secretHash: null,
      tokenEndpointAuthMethod: 'client_secret_basic',
    },
    1,
  );
  await store.roles.assign({ applicationId: 'app_m' }, ['rol_m']);
}

describe('cachedTokenRequests', () => {
  const empty: TokenRequestRecords = {
    application: undefined,
    resource: undefined,
    grantedScopes: [],
    failures: undefined,
    subjectToken: undefined,
    personalAccessToken: undefined,
    user: undefined,
  };
  /** An inner store that counts reads and answers `granted` as it is when asked. */
  function inner() {
    const state = {
      reads: 0,
      queries: [] as TokenRequestQuery[],
      granted: ['read'] as string[],
      during: undefined as (() => void) | undefined,
    };
    const resource = { id: 'res_o', name: 'Orders', indicator: INDICATOR } as TokenRequestRecords['resource'];
    const store: TokenRequestStore = {
      read: async (query) => {
        state.reads++;
        state.queries.push(query);
        const granted = [...state.granted];
        state.during?.();
        return {
          ...empty,
          resource: query.indicator === undefined ? undefined : resource,
          grantedScopes: granted,
        };
      },
    };
    return { state, store };
  }
  const versions = () => {
    const v = { current: '0:0' as string | undefined };
    const changes: ConfigChanges = { version: () => v.current };
    return { v, changes };
  };

  it('answers a repeated client-credentials read from memory while nothing changed', async () => {
    const { state, store } = inner();
    const { changes } = versions();
    const cached = cachedTokenRequests(store, changes);
    expect((await cached.read(cc())).grantedScopes).toEqual(['read']);
    state.granted = ['read', 'write'];
    expect((await cached.read(cc())).grantedScopes).toEqual(['read']);
    expect(state.reads).toBe(1);
    // Another application or resource is a read of its own.
    await cached.read(cc('app_other'));
    await cached.read({ ...cc(), indicator: 'https://billing.example.com' });
    expect(state.reads).toBe(3);
  });

  it('reads again after any change, and keeps nothing while changes cannot be followed', async () => {
    const { state, store } = inner();
    const { v, changes } = versions();
    const cached = cachedTokenRequests(store, changes);
    await cached.read(cc());
    state.granted = ['write'];
    v.current = '1:0';
    expect((await cached.read(cc())).grantedScopes).toEqual(['write']);
    expect(state.reads).toBe(2);
    v.current = undefined; // e.g. the PostgreSQL notification connection is down
    await cached.read(cc());
    await cached.read(cc());
    expect(state.reads).toBe(4);
  });

  it('does not keep a read that overlapped a change', async () => {
    const { state, store } = inner();
    const { v, changes } = versions();
    const cached = cachedTokenRequests(store, changes);
    state.during = () => {
      v.current = '1:0';
    };
    await cached.read(cc());
    state.during = undefined;
    state.granted = ['write'];
    expect((await cached.read(cc())).grantedScopes).toEqual(['write']);
    expect(state.reads).toBe(2);
  });

  it('reads the user, token and failure-window part of a read every time, taking its application and resource from the kept reads', async () => {
    const { state, store } = inner();
    const { v, changes } = versions();
    const cached = cachedTokenRequests(store, changes);
    const queries: TokenRequestQuery[] = [
      { ...cc(), subjectTokenHash: 'h', failureKey: 'k', scopesOf: 'user' },
      { ...cc('app_p'), personalAccessTokenHash: 'h', scopesOf: 'user' },
      { now: 1, indicator: INDICATOR, userId: 'usr_a', scopesOf: 'user' },
    ];
    for (const query of queries) {
      state.queries.length = 0;
      await cached.read(query);
      await cached.read(query);
      // The application and resource once, then the rest on each read, without them.
      expect(state.queries).toHaveLength(3);
      const [config, ...rest] = state.queries;
      expect(config).toEqual({ now: 1, applicationId: query.applicationId, indicator: INDICATOR });
      for (const read of rest) {
        expect(read).toMatchObject({ applicationId: undefined, indicator: undefined, resourceId: 'res_o' });
        expect([read.subjectTokenHash, read.personalAccessTokenHash, read.userId, read.failureKey]).toEqual([
          query.subjectTokenHash,
          query.personalAccessTokenHash,
          query.userId,
          query.failureKey,
        ]);
      }
    }
    // The application's scopes beside a user's parts, or while changes cannot be followed: read whole.
    state.queries.length = 0;
    await cached.read({ ...cc(), failureKey: 'k' });
    await cached.read({ ...cc(), failureKey: 'k' });
    v.current = undefined;
    await cached.read(queries[0]!);
    expect(state.queries).toEqual([{ ...cc(), failureKey: 'k' }, { ...cc(), failureKey: 'k' }, queries[0]]);
  });

  it('uses a kept read for at most maxAge, and keeps at most maxEntries', async () => {
    const { state, store } = inner();
    const { changes } = versions();
    const cached = cachedTokenRequests(store, changes, { maxEntries: 2, maxAge: 40 });
    await cached.read(cc());
    await cached.read(cc());
    expect(state.reads).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    await cached.read(cc());
    expect(state.reads).toBe(2);
    await cached.read(cc('app_2'));
    await cached.read(cc('app_3')); // evicts app_m, the least recently used
    await cached.read(cc());
    expect(state.reads).toBe(5);
  });

  it('hands out records that cannot be changed by the request using them', async () => {
    const { store } = inner();
    const cached = cachedTokenRequests(store, versions().changes);
    await cached.read(cc());
    const records = await cached.read(cc());
    expect(Object.isFrozen(records)).toBe(true);
    expect(Object.isFrozen(records.grantedScopes)).toBe(true);
  });
});

describe.each(DRIVERS)('%s: kept token-request reads see every change', (driver: Driver) => {
  const opened: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A database that two stores (two processes or instances) can open. */
  async function database(): Promise<string> {
    if (driver === 'postgres') return freshPostgresUrl();
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-cache-'));
    dirs.push(dir);
    return join(dir, 'issuer.sqlite');
  }
  const open = (database: string) => {
    const store = openStore(database, { onWarning: () => undefined });
    opened.push(store);
    return store;
  };

  async function seeded(database: string): Promise<Store> {
    const store = open(database);
    await seedWorld(store);
    return store;
  }
  /** Read until the kept read is in use (PostgreSQL: once the notification connection is live). */
  const granted = async (store: Store) => (await store.tokenRequests.read(cc())).grantedScopes;

  it('a change through the same store is seen by the very next read', async () => {
    const store = await seeded(await database());
    expect(await granted(store)).toEqual(['read']);
    expect(await granted(store)).toEqual(['read']);
    await store.roles.addScopes('rol_m', ['scp_w']);
    expect(await granted(store)).toEqual(['read', 'write']);
    await store.roles.unassign({ applicationId: 'app_m' }, 'rol_m');
    expect(await granted(store)).toEqual([]);
    await store.applications.delete('app_m');
    expect((await store.tokenRequests.read(cc())).application).toBeUndefined();
  });

  it('a change by another process or instance on the same database is seen', async () => {
    const url = await database();
    const one = await seeded(url);
    const other = open(url);
    // Kept on `one` (on PostgreSQL once its notification connection is live).
    await vi.waitFor(async () => {
      expect(await granted(one)).toEqual(['read']);
      if (driver === 'postgres') expect(await one.ping()).toBeUndefined();
    });
    await granted(one);
    await other.roles.addScopes('rol_m', ['scp_w']);
    await vi.waitFor(async () => expect(await granted(one)).toEqual(['read', 'write']), {
      timeout: 2_000 + DEFAULTS.tokenRequestCache.otherProcessCheckInterval,
    });
    await other.applications.delete('app_m');
    await vi.waitFor(async () => expect((await one.tokenRequests.read(cc())).application).toBeUndefined(), {
      timeout: 2_000 + DEFAULTS.tokenRequestCache.otherProcessCheckInterval,
    });
  });

  it("a user's scopes are read fresh while the application and resource are kept", async () => {
    const store = await seeded(await database());
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
    await store.roles.create({ id: 'rol_u', name: 'reader', type: 'User' }, 1);
    await store.roles.addScopes('rol_u', ['scp_r']);
    const query: TokenRequestQuery = { now: 1, indicator: INDICATOR, userId: 'usr_a', scopesOf: 'user' };
    const read = () => store.tokenRequests.read(query);
    expect((await read()).grantedScopes).toEqual([]);
    await store.roles.assign({ userId: 'usr_a' }, ['rol_u']);
    expect(await read()).toMatchObject({
      grantedScopes: ['read'],
      resource: { id: 'res_o' },
      user: { id: 'usr_a' },
    });
    await store.roles.addScopes('rol_u', ['scp_w']);
    expect((await read()).grantedScopes).toEqual(['read', 'write']);
    // The same records as one whole read of both parts.
    const whole = await store.tokenRequests.read({ ...query, applicationId: 'app_m', failureKey: 'k' });
    expect(whole).toMatchObject({ grantedScopes: ['read', 'write'], application: { id: 'app_m' } });
    await store.resources.delete('res_o');
    expect(await read()).toMatchObject({ grantedScopes: [], resource: undefined, user: { id: 'usr_a' } });
  });

  it("an operator's plain SQL is seen", async () => {
    const url = await database();
    const store = await seeded(url);
    await granted(store);
    await granted(store);
    const sql = "DELETE FROM role_scopes WHERE role_id = 'rol_m'";
    if (driver === 'postgres') {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    } else {
      const db = new DatabaseSync(url);
      try {
        db.exec(sql);
      } finally {
        db.close();
      }
    }
    await vi.waitFor(async () => expect(await granted(store)).toEqual([]), {
      timeout: 2_000 + DEFAULTS.tokenRequestCache.otherProcessCheckInterval,
    });
  });
});

describe('postgres: kept reads and the notification connection', () => {
  const opened: Store[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  it('while the notification connection is down, nothing is kept: a change then is seen at once', async () => {
    const url = await freshPostgresUrl();
    const store = openStore(url);
    opened.push(store);
    await seedWorld(store);
    const granted = async () => (await store.tokenRequests.read(cc())).grantedScopes;
    // The first read opens the notification connection; once it is live, reads are kept.
    expect(await granted()).toEqual(['read']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await granted()).toEqual(['read']);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // The server drops the LISTEN connection; changes made before it is back are not announced.
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gatehouse-issuer-notify'",
      );
      expect(killed.rowCount).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await admin.query("DELETE FROM role_scopes WHERE role_id = 'rol_m'");
    } finally {
      await admin.end();
    }
    // Well before the reconnection (250 ms later): read from the database, not from what was kept.
    expect(await granted()).toEqual([]);
  });
});
