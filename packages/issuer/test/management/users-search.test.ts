/**
 * `GET /api/users?search=`: users whose username or email contains the text (any case), or whose id it
 * is, paged and counted like the full list; LIKE wildcards in the text match only themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startIssuer(driver);
    admin = await adminToken(t);
    for (const [username, email] of [
      ['Alice', 'alice@example.com'],
      ['alicia', null],
      ['bob', 'bob@Alice-Corp.example'],
      ['carol_x', 'carol@example.org'],
      ['carolyx', null],
    ] as const) {
      const created = await api(t, admin, 'POST', '/users', { username, ...(email ? { email } : {}) });
      ids[username] = created.body.id;
    }
  });
  afterAll(() => t.close());

  const names = async (query: string) => {
    const res = await api(t, admin, 'GET', `/users?${query}`);
    expect(res.status).toBe(200);
    // Users created in the same second are ordered by id: compare as sets.
    const found: string[] = res.body.items.map((user: { username: string }) => user.username);
    return { names: found.sort(), total: res.body.total };
  };

  it('matches usernames and emails by substring, in any case', async () => {
    expect(await names('search=ALI')).toEqual({ names: ['Alice', 'alicia', 'bob'], total: 3 });
    expect(await names('search=example.org')).toEqual({ names: ['carol_x'], total: 1 });
    expect(await names('search=nobody')).toEqual({ names: [], total: 0 });
  });

  it('matches an id exactly', async () => {
    expect(await names(`search=${ids.bob}`)).toEqual({ names: ['bob'], total: 1 });
  });

  it('pages the matches', async () => {
    const first = await names('search=ali&pageSize=2&page=1');
    const second = await names('search=ali&pageSize=2&page=2');
    expect([first.total, second.total]).toEqual([3, 3]);
    expect([...first.names, ...second.names].sort()).toEqual(['Alice', 'alicia', 'bob']);
    expect(second.names).toHaveLength(1);
  });

  it('treats % and _ as themselves', async () => {
    expect(await names('search=carol_')).toEqual({ names: ['carol_x'], total: 1 });
    expect(await names('search=%25')).toEqual({ names: [], total: 0 });
  });

  it('refuses an empty or oversized search with 400', async () => {
    expect((await api(t, admin, 'GET', '/users?search=')).status).toBe(400);
    expect((await api(t, admin, 'GET', `/users?search=${'a'.repeat(255)}`)).status).toBe(400);
  });
});
