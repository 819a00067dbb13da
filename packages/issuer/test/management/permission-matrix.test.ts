/**
 * The permission matrix (catalogue F7, F23): docs/management-api.md holds one table of every
 * Management API operation × every Management API scope (and no token), generated from the route
 * definitions; here it is checked against the routes and then run whole against a live issuer — for a
 * machine-to-machine token holding each scope alone, and for a console user whose role holds it — on
 * every driver. Calls that get through are made harmless (unknown ids, bodies that fail validation), so
 * the table runs without changing anything but the signing key (rotation has no harmless form).
 * A scope taken from the caller's role stops working at once, whatever its token still carries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_TOKEN, permissionMatrix } from '../../../../scripts/management-api-doc.mjs';
import { MANAGEMENT_SCOPES } from '../../src/management/scopes.js';
import { consoleToken } from '../helpers/console-token.js';
import { DRIVERS } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, managementClient, startIssuer, type TestIssuer } from '../helpers/issuer.js';

const DOC = readFileSync(join(import.meta.dirname, '../../../../docs/management-api.md'), 'utf8');

/** The matrix as docs/management-api.md shows it: `METHOD /api/path` → column → cell. */
function documentedMatrix(): Map<string, Record<string, string>> {
  const section = DOC.slice(DOC.indexOf('## Permission matrix'), DOC.indexOf('## The scope ceiling'));
  const lines = section.split('\n').filter((line) => line.startsWith('| '));
  const header = lines[0]!
    .split('|')
    .slice(1, -1)
    .map((part) => part.trim().replaceAll('`', ''));
  const rows = new Map<string, Record<string, string>>();
  for (const line of lines.slice(2)) {
    const parts = line
      .split('|')
      .slice(1, -1)
      .map((part) => part.trim().replaceAll('`', ''));
    const cells: Record<string, string> = {};
    for (const [index, column] of header.entries()) if (index > 1) cells[column] = parts[index]!;
    rows.set(`${parts[0]} ${parts[1]}`, cells);
  }
  return rows;
}

/** A call that gets through but changes nothing: unknown ids in the path, an empty (invalid) body. */
function harmless(method: string, path: string): { path: string; body: unknown } {
  const concrete = path.replace(/^\/api/, '').replace(/\{\w+\}/g, 'matrix-unknown');
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(method) && concrete !== '/signing-keys/rotate';
  return { path: concrete, body: hasBody ? {} : undefined };
}

const SCOPES = MANAGEMENT_SCOPES.map((scope) => scope.name);

describe('docs/management-api.md', () => {
  it('F7: the permission matrix lists every operation and every scope, as the routes define them', async () => {
    const t = await startIssuer('sqlite');
    try {
      const openapi = await (await fetch(`${t.baseUrl}/api/openapi.json`)).json();
      const expected = permissionMatrix(openapi);
      const documented = documentedMatrix();
      expect(expected.scopes).toEqual(SCOPES);
      expect([...documented.keys()].sort()).toEqual(
        expected.rows.map((row) => `${row.method} ${row.path}`).sort(),
      );
      for (const row of expected.rows) expect(documented.get(`${row.method} ${row.path}`)).toEqual(row.cells);
      // Every operation is open to all and closed to a token without a scope of it.
      for (const cells of documented.values()) {
        expect(cells.all).toBe('✓');
        expect(cells[NO_TOKEN]).toBe('401');
        expect(Object.values(cells)).toContain('403');
      }
    } finally {
      await t.close();
    }
  });
});

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  const tokens = { m2m: new Map<string, string>(), console: new Map<string, string>() };

  beforeAll(async () => {
    t = await startIssuer(driver, {
      rateLimits: { managementPerClient: 100_000, tokenPerClient: 100_000, tokenPerAddress: 100_000 },
    });
    const admin = await adminToken(t);
    const resources = await api(t, admin, 'GET', '/resources?pageSize=100');
    const management = resources.body.items.find((r: { system: boolean }) => r.system);
    const scopes = (await api(t, admin, 'GET', `/resources/${management.id}/scopes`)).body.items as {
      id: string;
      name: string;
    }[];
    for (const scope of scopes) {
      tokens.m2m.set(scope.name, (await managementClient(t, [scope.name])).token);
      const role = await api(t, admin, 'POST', '/roles', { name: `console ${scope.name}`, type: 'User' });
      await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds: [scope.id] });
      const username = `console-${scope.name.replace(/[^a-z]/g, '-')}`;
      const user = await api(t, admin, 'POST', '/users', { username, password: PASSWORD });
      await api(t, admin, 'POST', `/users/${user.body.id}/roles`, { roleIds: [role.body.id] });
      tokens.console.set(scope.name, await consoleToken(t, username, { scope: `openid ${scope.name}` }));
    }
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it.each(['m2m', 'console'] as const)(
    'F7, F23: every operation × every scope answers as the documented matrix says (%s tokens)',
    async (kind) => {
      const matrix = documentedMatrix();
      const mismatches: string[] = [];
      for (const [operation, cells] of matrix) {
        const [method, template] = operation.split(' ') as [string, string];
        const { path, body } = harmless(method, template);
        for (const column of [NO_TOKEN, ...SCOPES]) {
          const token = column === NO_TOKEN ? undefined : tokens[kind].get(column)!;
          const res = await api(t, token, method, path, body);
          const got = res.status === 401 ? '401' : res.status === 403 ? '403' : '✓';
          if (got !== cells[column])
            mismatches.push(`${operation} with ${column}: ${res.status} ${JSON.stringify(res.body)}`);
          if (got === '403') expect(res.body.code, operation).toBe('insufficient_scope');
        }
      }
      expect(mismatches).toEqual([]);
    },
    120_000,
  );

  it('F23: a scope taken from the caller’s role is refused at once, though its token still carries it', async () => {
    const caller = await managementClient(t, ['users:write']);
    const admin = await adminToken(t);
    const created = await api(t, caller.token, 'POST', '/users', { username: 'f23-before' });
    expect(created.status).toBe(201);
    const held = await api(t, admin, 'GET', `/roles/${caller.roleId}/scopes`);
    const usersWrite = held.body.items.find((scope: { name: string }) => scope.name === 'users:write');
    expect((await api(t, admin, 'DELETE', `/roles/${caller.roleId}/scopes/${usersWrite.id}`)).status).toBe(
      204,
    );
    for (const [method, path, body] of [
      ['POST', '/users', { username: 'f23-after' }],
      ['GET', '/users'],
      ['PUT', `/users/${created.body.id}/suspension`, { suspended: true }],
    ] as [string, string, unknown?][]) {
      const res = await api(t, caller.token, method, path, body);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'access_denied', reason: 'scope_not_held' });
    }
    const users = await api(t, admin, 'GET', '/users?search=f23-after');
    expect(users.body.total).toBe(0);
  });
});
