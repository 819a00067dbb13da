/**
 * Audit inside the transaction (B77): a real issuer process (`gatehouse-issuer start`, the built CLI)
 * on SQLite and on PostgreSQL serves a flood of token exchanges — most refused after the subject token
 * was found (which burns it), the rest successful — and is killed with SIGKILL in the middle, three
 * times over (restarted on the same database each time). Reading the database afterwards: every consumed subject token has its exchange's audit event, every event
 * naming one of these tokens belongs to a consumed token (both or neither), and every answer the
 * clients received before the kill is in the database.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecret } from '../../src/internal/secrets.js';
import { openStore } from '../../src/storage/open.js';
import { tokenRequest } from '../helpers/agent.js';
import { DRIVERS, freshPostgresUrl } from '../helpers/drivers.js';
import { ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/exchange.js';
import {
  ensureBuilt,
  type Instance,
  runCliProcess,
  startInstance,
  stopInstance,
} from '../helpers/instances.js';

const ORDERS = 'https://orders.example.com';
const ADMIN = { clientId: 'crash-admin', clientSecret: 'c'.repeat(40) };
const WEB = { clientId: 'te-web', clientSecret: 'te-web-secret-0123456789abcdefghijklmnopqr' };
const ROUNDS = 3;
const KILL_AFTER = 100;
const TOKENS = ROUNDS * KILL_AFTER * 2;
const WORKERS = 16;

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(DRIVERS)('%s', (driver) => {
  let instance: Instance | undefined;
  afterAll(async () => {
    if (instance !== undefined) await stopInstance(instance);
  });

  it('B77: kill -9 during a flood of exchanges: every consumed subject token has its audit event', async () => {
    const database = driver === 'postgres' ? await freshPostgresUrl() : join(dir, 'issuer.sqlite');
    const baseUrl = 'http://127.0.0.1:1';
    const env = {
      GATEHOUSE_DATABASE: database,
      GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.clientId,
      GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.clientSecret,
    };
    const seedFile = join(dir, `seed-${driver}.json`);
    writeFileSync(
      seedFile,
      JSON.stringify({
        resources: [{ name: 'Orders', indicator: ORDERS, scopes: ['read:orders', 'admin:orders'] }],
        roles: [{ name: 'reader', type: 'User', scopes: [{ resource: ORDERS, scope: 'read:orders' }] }],
        users: [{ username: 'alice', password: 'correct horse battery staple', roles: ['reader'] }],
        applications: [
          {
            name: 'Support console',
            type: 'Traditional',
            clientId: WEB.clientId,
            clientSecret: WEB.clientSecret,
            redirectUris: ['http://127.0.0.1:8976/callback'],
            tokenExchangeEnabled: true,
          },
        ],
      }),
    );
    await runCliProcess(['seed', seedFile, '--base-url', baseUrl], env);
    instance = await startInstance('crash', baseUrl, env);
    let url = instance.url;

    // Subject tokens for alice, minted through the Management API of the running process.
    const admin = await tokenRequest(
      url,
      { grant_type: 'client_credentials', resource: `${baseUrl}/api` },
      ADMIN,
    );
    expect(admin.status).toBe(200);
    const store = openStore(database);
    try {
      const alice = (await store.users.findByLogin('alice'))!.id;
      const values: string[] = [];
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          while (values.length < TOKENS) {
            const res = await fetch(`${url}/api/subject-tokens`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${admin.body.access_token}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({ userId: alice }),
            });
            expect(res.status).toBe(201);
            values.push(((await res.json()) as { subjectToken: string }).subjectToken);
          }
        }),
      );

      // The flood: three exchanges in four are refused after the token was found (a scope alice lacks),
      // which burns the token; SIGKILL once KILL_AFTER answers have arrived; then again on a new process.
      const answered = new Map<string, number>();
      let next = 0;
      let killed = false;
      let round = 0;
      let responses = 0;
      const worker = async () => {
        while (!killed && next < values.length) {
          const index = next++;
          const value = values[index]!;
          try {
            const res = await tokenRequest(
              url,
              {
                grant_type: TOKEN_EXCHANGE,
                subject_token: value,
                subject_token_type: ACCESS_TOKEN_TYPE,
                resource: ORDERS,
                scope: index % 4 === 0 ? 'read:orders' : 'admin:orders',
              },
              WEB,
            );
            // 200, or invalid_scope (decided after the token was found): both consumed it. Anything
            // else (e.g. a rate limit) never reached the token, which the checks below allow.
            const consumes = res.status === 200 || res.body.error === 'invalid_scope';
            if (!killed && consumes) answered.set(value, res.status);
            if (++responses >= KILL_AFTER * (round + 1) && !killed) {
              killed = true;
              instance!.child.kill('SIGKILL');
            }
          } catch {
            // A request cut by the kill is not acknowledged; before the kill nothing may fail.
            if (!killed) throw new Error('an exchange failed before the kill');
          }
        }
      };
      for (; round < ROUNDS; round++) {
        if (round > 0) {
          instance = await startInstance(`crash-${round}`, baseUrl, env);
          url = instance.url;
        }
        const before = answered.size;
        killed = false;
        await Promise.all(Array.from({ length: WORKERS }, worker));
        expect(answered.size - before).toBeGreaterThan(0);
        await instance.exited;
        expect(instance.child.signalCode).toBe('SIGKILL');
      }
      expect([...answered.values()].filter((status) => status === 200).length).toBeGreaterThan(0);
      expect([...answered.values()].filter((status) => status === 400).length).toBeGreaterThan(0);

      // What the database holds after the crash.
      const events = await store.auditEvents.list({}, { page: 1, pageSize: 100_000 });
      const audited = new Map<string, string[]>();
      for (const event of events.items) {
        if (!event.type.startsWith('token_exchange.')) continue;
        const id = event.details.subjectTokenId;
        if (typeof id === 'string') audited.set(id, [...(audited.get(id) ?? []), event.type]);
      }
      let consumed = 0;
      for (const value of values) {
        const token = (await store.subjectTokens.findByHash(hashSecret(value)))!;
        expect(token).toBeDefined();
        const types = audited.get(token.id) ?? [];
        if (token.consumedAt !== null) {
          consumed++;
          // Exactly one exchange event for a token exchanged once.
          expect(types, `consumed ${token.id} has no audit event`).toHaveLength(1);
          expect(types[0]).toMatch(/^token_exchange\.(succeeded|failed)$/);
        } else {
          expect(types, `${token.id} is not consumed but audited`).toEqual([]);
          expect(answered.has(value), 'an answered exchange left its token unconsumed').toBe(false);
        }
      }
      expect(consumed).toBeGreaterThanOrEqual(answered.size);
      // The kill landed mid-flood: tokens were left untouched.
      expect(consumed).toBeLessThan(TOKENS);
    } finally {
      await store.close();
    }
  }, 120_000);
});
