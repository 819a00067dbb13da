/**
 * The `Store` contract, run on every driver (SQLite and PostgreSQL): migrations, CRUD, conflicts, role
 * scopes, atomic consume, keys (one active, change notifications), hostile ids (B44), subject tokens
 * (atomic single use, B2), personal access tokens, audit events, failure counters and the exclusive lock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreConflictError } from '../../src/errors.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import type { SigningKeyRecord, Store } from '../../src/storage/store.js';
import { DRIVERS, openTestStore } from '../helpers/drivers.js';

const page = { page: 1, pageSize: 10 };

describe.each(DRIVERS)('%s store', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('migrates once; names its driver; answers ping', async () => {
    expect((await store.migrate()).applied).toEqual([]);
    expect((await store.migrate()).current).toBe(MIGRATIONS.at(-1)!.version);
    expect(store.driver).toBe(driver);
    expect(store.multiNode).toBe(driver === 'postgres');
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('users: create, find by username or email case-insensitively, update, conflicts, delete', async () => {
    const user = await store.users.create(
      { id: 'usr_a', username: 'Alice', email: 'Alice@Example.com', customData: { a: 1 } },
      10,
    );
    expect(user).toMatchObject({ username: 'Alice', suspended: false, customData: { a: 1 }, createdAt: 10 });
    expect((await store.users.findByLogin('alice'))?.id).toBe('usr_a');
    expect((await store.users.findByLogin('ALICE@example.COM'))?.id).toBe('usr_a');
    await expect(store.users.create({ id: 'usr_b', username: 'ALICE' }, 11)).rejects.toThrow(
      StoreConflictError,
    );
    await expect(
      store.users.create({ id: 'usr_c', username: 'carol', email: 'alice@example.com' }, 11),
    ).rejects.toMatchObject({ field: 'user.email' });
    const updated = await store.users.update('usr_a', { suspended: true, email: null }, 20);
    expect(updated).toMatchObject({ suspended: true, email: null, updatedAt: 20 });
    expect(await store.users.update('usr_missing', { suspended: true }, 20)).toBeUndefined();
    expect((await store.users.list(page)).total).toBe(1);
    expect(await store.users.delete('usr_a')).toBe(true);
    expect(await store.users.delete('usr_a')).toBe(false);
  });

  it('B44: injection-shaped and huge ids are plain values', async () => {
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
    for (const id of ["' OR 1=1--", "usr_a' --", '\0', 'x'.repeat(10_000), '%00']) {
      expect(await store.users.get(id)).toBeUndefined();
      expect(await store.users.findByLogin(id)).toBeUndefined();
      expect(await store.users.delete(id)).toBe(false);
    }
    expect((await store.users.list(page)).total).toBe(1);
  });

  it('roles grant resource scopes to users and applications', async () => {
    await store.resources.create(
      { id: 'res_o', name: 'Orders', indicator: 'https://orders', accessTokenTtl: 60 },
      1,
    );
    await store.resources.create(
      { id: 'res_b', name: 'Billing', indicator: 'https://billing', accessTokenTtl: 60 },
      1,
    );
    await store.resources.createScope({ id: 'scp_r', resourceId: 'res_o', name: 'read' }, 1);
    await store.resources.createScope({ id: 'scp_w', resourceId: 'res_o', name: 'write' }, 1);
    await store.resources.createScope({ id: 'scp_b', resourceId: 'res_b', name: 'read' }, 1);
    await expect(
      store.resources.createScope({ id: 'scp_x', resourceId: 'res_o', name: 'read' }, 1),
    ).rejects.toMatchObject({ field: 'scope.name' });
    await store.roles.create({ id: 'rol_u', name: 'reader', type: 'User' }, 1);
    await store.roles.create({ id: 'rol_m', name: 'service', type: 'MachineToMachine' }, 1);
    await store.roles.addScopes('rol_u', ['scp_r', 'scp_b', 'scp_r', 'scp_unknown']);
    await store.roles.addScopes('rol_m', ['scp_r', 'scp_w']);
    await store.users.create({ id: 'usr_a', username: 'alice' }, 1);
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
    await store.roles.assign({ userId: 'usr_a' }, ['rol_u', 'rol_u']);
    await store.roles.assign({ applicationId: 'app_m' }, ['rol_m']);
    expect(await store.roles.grantedScopes({ userId: 'usr_a' }, 'https://orders')).toEqual(['read']);
    expect(await store.roles.grantedScopes({ userId: 'usr_a' }, 'https://billing')).toEqual(['read']);
    expect(await store.roles.grantedScopes({ applicationId: 'app_m' }, 'https://orders')).toEqual([
      'read',
      'write',
    ]);
    expect(await store.roles.grantedScopes({ applicationId: 'app_m' }, 'https://orders/')).toEqual([]);
    expect((await store.roles.listScopes('rol_u')).map((s) => `${s.indicator} ${s.name}`)).toEqual([
      'https://billing read',
      'https://orders read',
    ]);
    expect((await store.roles.listFor({ userId: 'usr_a' })).map((r) => r.name)).toEqual(['reader']);
    // Deleting a scope removes it from roles; deleting a resource removes its scopes.
    await store.resources.deleteScope('res_o', 'scp_w');
    expect(await store.roles.grantedScopes({ applicationId: 'app_m' }, 'https://orders')).toEqual(['read']);
    await store.resources.delete('res_o');
    expect(await store.roles.grantedScopes({ userId: 'usr_a' }, 'https://orders')).toEqual([]);
    expect(await store.roles.unassign({ userId: 'usr_a' }, 'rol_u')).toBe(true);
    expect(await store.roles.grantedScopes({ userId: 'usr_a' }, 'https://billing')).toEqual([]);
  });

  it('payloads: expiry, lookup by uid and user code, atomic single consume, revoke by grant', async () => {
    const now = 1_000;
    await store.payloads.upsert('AuthorizationCode', 'c1', { jti: 'c1' }, now + 60, { grantId: 'g1' });
    await store.payloads.upsert('RefreshToken', 'r1', { jti: 'r1' }, now + 60, { grantId: 'g1' });
    await store.payloads.upsert('Interaction', 'i1', { uid: 'u1' }, now + 60, { uid: 'u1' });
    await store.payloads.upsert('DeviceCode', 'd1', {}, null, { userCode: 'ABCD' });
    await store.payloads.upsert('AuthorizationCode', 'old', {}, now - 1, {});
    expect((await store.payloads.find('AuthorizationCode', 'c1', now))?.grantId).toBe('g1');
    expect(await store.payloads.find('AuthorizationCode', 'old', now)).toBeUndefined();
    expect(await store.payloads.find('RefreshToken', 'c1', now)).toBeUndefined();
    expect((await store.payloads.findByUid('Interaction', 'u1', now))?.payload).toEqual({ uid: 'u1' });
    expect(await store.payloads.findByUserCode('DeviceCode', 'ABCD', now)).toBeDefined();

    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.payloads.consume('AuthorizationCode', 'c1', now)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.payloads.find('AuthorizationCode', 'c1', now))?.consumedAt).toBe(now);
    expect(await store.payloads.consume('AuthorizationCode', 'old', now)).toBe(false);
    expect(await store.payloads.consume('AuthorizationCode', 'missing', now)).toBe(false);

    await store.payloads.revokeByGrantId('g1');
    expect(await store.payloads.find('AuthorizationCode', 'c1', now)).toBeUndefined();
    expect(await store.payloads.find('RefreshToken', 'r1', now)).toBeUndefined();
    expect(await store.payloads.purgeExpired(now)).toBe(1);
    await store.payloads.destroy('Interaction', 'i1');
    expect(await store.payloads.findByUid('Interaction', 'u1', now)).toBeUndefined();
  });

  it('keys: one initial active key; rotation retires atomically; purge after expiry', async () => {
    const key = (kid: string) => ({
      kid,
      alg: 'RS256',
      privateJwk: { kid },
      status: 'active' as const,
      createdAt: 1,
      retiredAt: null,
      expiresAt: null,
    });
    expect((await store.keys.insertInitial(key('k1'))).kid).toBe('k1');
    expect((await store.keys.insertInitial(key('k2'))).kid).toBe('k1');
    await store.keys.rotate(key('k3'), 5, 100);
    const keys = await store.keys.list();
    expect(keys.map((k) => [k.kid, k.status, k.expiresAt])).toEqual([
      ['k3', 'active', null],
      ['k1', 'retired', 100],
    ]);
    expect(await store.keys.purgeExpired(99)).toBe(0);
    expect(await store.keys.purgeExpired(100)).toBe(1);
  });

  it('settings: set if absent, then overwrite', async () => {
    expect(await store.settings.get('k')).toBeUndefined();
    expect(await store.settings.setIfAbsent('k', 'a')).toBe('a');
    expect(await store.settings.setIfAbsent('k', 'b')).toBe('a');
    await store.settings.set('k', 'c');
    expect(await store.settings.get('k')).toBe('c');
  });

  it('subject tokens: one conditional update consumes; expired and consumed ones are refused but findable', async () => {
    const base = { userId: 'usr_x', createdBy: 'app_admin', context: { ticketId: 'T-1' } };
    const token = await store.subjectTokens.create(
      { ...base, id: 'stk_1', tokenHash: 'a'.repeat(64), applicationId: 'app_a', expiresAt: 160 },
      100,
    );
    expect(token).toMatchObject({
      userId: 'usr_x',
      context: { ticketId: 'T-1' },
      applicationId: 'app_a',
      actorId: null,
      createdBy: 'app_admin',
      createdAt: 100,
      expiresAt: 160,
      consumedAt: null,
    });
    // Concurrent consumers: exactly one gets the record.
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.subjectTokens.consume('a'.repeat(64), 120)),
    );
    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
    expect(results.find((result) => result !== undefined)?.consumedAt).toBe(120);
    expect((await store.subjectTokens.findByHash('a'.repeat(64)))?.consumedAt).toBe(120);

    await store.subjectTokens.create(
      { ...base, id: 'stk_2', tokenHash: 'b'.repeat(64), expiresAt: 160 },
      100,
    );
    expect(await store.subjectTokens.consume('b'.repeat(64), 160)).toBeUndefined();
    expect((await store.subjectTokens.findByHash('b'.repeat(64)))?.consumedAt).toBeNull();
    expect(await store.subjectTokens.consume('c'.repeat(64), 100)).toBeUndefined();
    expect(await store.subjectTokens.findByHash('c'.repeat(64))).toBeUndefined();
    await expect(
      store.subjectTokens.create({ ...base, id: 'stk_3', tokenHash: 'b'.repeat(64), expiresAt: 200 }, 100),
    ).rejects.toMatchObject({ field: 'subject_token.value' });
    expect(await store.subjectTokens.purgeExpired(161)).toBe(2);
    expect(await store.subjectTokens.findByHash('a'.repeat(64))).toBeUndefined();
  });

  it('personal access tokens: unique name per user, listing, lookup by digest, touch, revoke, cascade', async () => {
    await store.users.create({ id: 'usr_p', username: 'pat-owner' }, 1);
    await store.users.create({ id: 'usr_q', username: 'other' }, 1);
    const pat = await store.personalAccessTokens.create(
      { id: 'pat_1', tokenHash: 'd'.repeat(64), userId: 'usr_p', name: 'ci', scopes: ['read:orders'] },
      10,
    );
    expect(pat).toMatchObject({ name: 'ci', scopes: ['read:orders'], expiresAt: null, lastUsedAt: null });
    await expect(
      store.personalAccessTokens.create(
        { id: 'pat_2', tokenHash: 'e'.repeat(64), userId: 'usr_p', name: 'ci' },
        11,
      ),
    ).rejects.toMatchObject({ field: 'personal_access_token.name' });
    await store.personalAccessTokens.create(
      { id: 'pat_3', tokenHash: 'f'.repeat(64), userId: 'usr_q', name: 'ci', expiresAt: 500 },
      12,
    );
    expect((await store.personalAccessTokens.listFor('usr_p')).map((token) => token.id)).toEqual(['pat_1']);
    await store.personalAccessTokens.touch('pat_1', 42);
    expect((await store.personalAccessTokens.findByHash('d'.repeat(64)))?.lastUsedAt).toBe(42);
    expect(await store.personalAccessTokens.delete('usr_q', 'pat_1')).toBe(false);
    expect(await store.personalAccessTokens.delete('usr_p', 'pat_1')).toBe(true);
    expect(await store.personalAccessTokens.findByHash('d'.repeat(64))).toBeUndefined();
    await store.users.delete('usr_q');
    expect(await store.personalAccessTokens.findByHash('f'.repeat(64))).toBeUndefined();
  });

  it('audit events: newest first, filtered by type, user, actor, application and time', async () => {
    const events = [
      { type: 'subject_token.created', applicationId: 'app_admin', userId: 'usr_1', at: 10 },
      {
        type: 'token_exchange.succeeded',
        applicationId: 'app_web',
        userId: 'usr_1',
        actorId: 'usr_9',
        at: 20,
      },
      {
        type: 'token_exchange.failed',
        applicationId: 'app_web',
        userId: 'usr_2',
        reason: 'subject_token_consumed',
        at: 30,
      },
    ] as const;
    for (const [index, { at, ...event }] of events.entries())
      await store.auditEvents.record({ id: `evt_${index}`, details: { n: index }, ...event }, at);
    const all = await store.auditEvents.list({}, page);
    expect(all.total).toBe(3);
    expect(all.items.map((event) => event.id)).toEqual(['evt_2', 'evt_1', 'evt_0']);
    expect(all.items[0]).toMatchObject({
      reason: 'subject_token_consumed',
      details: { n: 2 },
      actorId: null,
    });
    const ids = async (filter: Parameters<Store['auditEvents']['list']>[0]) =>
      (await store.auditEvents.list(filter, page)).items.map((event) => event.id);
    expect(await ids({ userId: 'usr_1' })).toEqual(['evt_1', 'evt_0']);
    expect(await ids({ actorId: 'usr_9' })).toEqual(['evt_1']);
    expect(await ids({ applicationId: 'app_web', type: 'token_exchange.failed' })).toEqual(['evt_2']);
    expect(await ids({ since: 20, until: 29 })).toEqual(['evt_1']);
    expect(await ids({ userId: "' OR 1=1--" })).toEqual([]);
    const second = await store.auditEvents.list({}, { page: 2, pageSize: 2 });
    expect(second.items.map((event) => event.id)).toEqual(['evt_0']);
  });

  const signingKey = (kid: string): SigningKeyRecord => ({
    kid,
    alg: 'ES256',
    privateJwk: { kid },
    status: 'active',
    createdAt: 1,
    retiredAt: null,
    expiresAt: null,
  });

  it('keys: concurrent first keys and rotations leave exactly one active key', async () => {
    const initial = await Promise.all(
      ['a', 'b', 'c', 'd'].map((kid) => store.keys.insertInitial(signingKey(kid))),
    );
    expect(new Set(initial.map((key) => key.kid)).size).toBe(1);
    await Promise.all(
      ['r1', 'r2', 'r3', 'r4', 'r5'].map((kid) => store.keys.rotate(signingKey(kid), 10, 100)),
    );
    const keys = await store.keys.list();
    expect(keys).toHaveLength(6);
    expect(keys.filter((key) => key.status === 'active')).toHaveLength(1);
    expect(keys[0]!.status).toBe('active');
    expect(keys.slice(1).every((key) => key.status === 'retired' && key.expiresAt === 100)).toBe(true);
  });

  it('keys: watch is called once live, then after each change, until unsubscribed', async () => {
    let calls = 0;
    const unwatch = store.keys.watch(() => calls++);
    await vi.waitFor(() => expect(calls).toBe(1));
    await store.keys.insertInitial(signingKey('w1'));
    await vi.waitFor(() => expect(calls).toBe(2));
    await store.keys.insertInitial(signingKey('w2')); // no change: a key is active already
    await store.keys.rotate(signingKey('w3'), 5, 50);
    await vi.waitFor(() => expect(calls).toBe(3));
    unwatch();
    await store.keys.rotate(signingKey('w4'), 6, 60);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toBe(3);
  });

  it('settings: concurrent setIfAbsent agree on one value', async () => {
    const values = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.settings.setIfAbsent('cookie', `v${i}`)),
    );
    expect(new Set(values).size).toBe(1);
    expect(await store.settings.get('cookie')).toBe(values[0]);
  });

  it('failure counters: fixed windows, atomic increments, purge (B6)', async () => {
    expect(await store.failures.get('k', 100)).toBeUndefined();
    expect(await store.failures.increment('k', 100, 60)).toEqual({ count: 1, endsAt: 160 });
    const counted = await Promise.all(
      Array.from({ length: 20 }, () => store.failures.increment('k', 110, 60)),
    );
    expect(counted.map((window) => window.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    expect(await store.failures.get('k', 159)).toEqual({ count: 21, endsAt: 160 });
    expect(await store.failures.get('k', 160)).toBeUndefined();
    expect(await store.failures.get('other', 110)).toBeUndefined();
    // An ended window starts over.
    expect(await store.failures.increment('k', 170, 60)).toEqual({ count: 1, endsAt: 230 });
    await store.failures.increment('gone', 0, 10);
    expect(await store.failures.purgeExpired(10)).toBe(1);
    expect(await store.failures.purgeExpired(10)).toBe(0);
  });

  it('failure counters: incrementAll adds each key its count in one statement (0 reads the open window)', async () => {
    expect(
      await store.failures.incrementAll(
        [
          { key: 'a', window: 60, count: 5 },
          { key: 'b', window: 30 },
        ],
        100,
      ),
    ).toEqual([
      { count: 5, endsAt: 160 },
      { count: 1, endsAt: 130 },
    ]);
    expect(
      await store.failures.incrementAll(
        [
          { key: 'b', window: 60, count: 0 },
          { key: 'a', window: 60, count: 3 },
        ],
        110,
      ),
    ).toEqual([
      { count: 1, endsAt: 130 },
      { count: 8, endsAt: 160 },
    ]);
    // An ended window starts over at the count sent.
    expect(await store.failures.incrementAll([{ key: 'a', window: 60, count: 4 }], 160)).toEqual([
      { count: 4, endsAt: 220 },
    ]);
  });

  it('exclusive: sections under one name never overlap; a failure releases the lock', async () => {
    const events: string[] = [];
    const section = (id: number) =>
      store.exclusive('test', async () => {
        events.push(`in ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        await store.settings.set('last', String(id));
        events.push(`out ${id}`);
        return id;
      });
    expect(await Promise.all([section(1), section(2), section(3)])).toEqual([1, 2, 3]);
    for (let i = 0; i < events.length; i += 2) {
      expect(events[i]!.replace('in', 'out')).toBe(events[i + 1]);
    }
    await expect(
      store.exclusive('test', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.exclusive('test', async () => 'free')).toBe('free');
  });
});
