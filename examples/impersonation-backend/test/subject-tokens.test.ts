import { describe, expect, it } from 'vitest';
import { createSubjectTokenClient, ManagementApiError } from '../src/subject-tokens.ts';

/** A token source handing out `m2m-1`, `m2m-2`, … after each invalidate(). */
function tokens() {
  let n = 1;
  return { get: async () => `m2m-${n}`, invalidate: () => void n++ };
}

/** A Management API as a `fetch` that answers each request with the next status (201 after the list). */
function managementApi(statuses: number[] = []) {
  const seen: Array<{ url: string; bearer: string | null; body: unknown }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    seen.push({
      url,
      bearer: new Headers(init.headers).get('authorization'),
      body: JSON.parse(String(init.body)),
    });
    const status = statuses.shift() ?? 201;
    if (status === 201) return Response.json({ subjectToken: 'sub_abc', expiresIn: 600 }, { status });
    return Response.json({ code: status === 404 ? 'not_found' : 'invalid_token', message: 'x' }, { status });
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

const REQUEST = { userId: 'usr_alice', context: { ticketId: 'SUP-1' }, actorId: 'usr_sam' };

describe('createSubjectTokenClient', () => {
  it('posts the request with the M2M token and returns { subjectToken, expiresIn }', async () => {
    const api = managementApi();
    const client = createSubjectTokenClient({
      managementApi: 'https://id.gatehouse.test/api/',
      tokens: tokens(),
      fetch: api.fetch,
    });
    expect(await client.create(REQUEST)).toEqual({ subjectToken: 'sub_abc', expiresIn: 600 });
    expect(api.seen).toEqual([
      { url: 'https://id.gatehouse.test/api/subject-tokens', bearer: 'Bearer m2m-1', body: REQUEST },
    ]);
  });

  it('on 401 drops the M2M token and retries once with a new one', async () => {
    const api = managementApi([401]);
    const client = createSubjectTokenClient({
      managementApi: 'https://id.gatehouse.test/api',
      tokens: tokens(),
      fetch: api.fetch,
    });
    await client.create(REQUEST);
    expect(api.seen.map((r) => r.bearer)).toEqual(['Bearer m2m-1', 'Bearer m2m-2']);
  });

  it('gives up after the second 401, and reports other refusals with status and code', async () => {
    const twice = managementApi([401, 401]);
    const client = createSubjectTokenClient({
      managementApi: 'https://id.gatehouse.test/api',
      tokens: tokens(),
      fetch: twice.fetch,
    });
    await expect(client.create(REQUEST)).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    expect(twice.seen).toHaveLength(2);
    const missing = managementApi([404]);
    const other = createSubjectTokenClient({
      managementApi: 'https://id.gatehouse.test/api',
      tokens: tokens(),
      fetch: missing.fetch,
    });
    const err = await other.create(REQUEST).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagementApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
  });
});
