import { describe, expect, it } from 'vitest';
import { createTokenSource, TokenRequestError } from '../src/m2m-token.ts';

const SECRET = 'backend-secret-0123456789abcdefghijklmnop';

/** A token endpoint as a `fetch`: counts requests and answers with `expires_in`. */
function endpoint(expiresIn: number, status = 200) {
  const requests: Array<{ url: string; authorization: string | null; body: string }> = [];
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const fetch = (async (url: string, init: RequestInit) => {
    requests.push({
      url,
      authorization: new Headers(init.headers).get('authorization'),
      body: String(init.body),
    });
    await gate;
    return status === 200
      ? Response.json({
          access_token: `token-${requests.length}`,
          token_type: 'Bearer',
          expires_in: expiresIn,
        })
      : Response.json({ error: 'invalid_client' }, { status });
  }) as typeof globalThis.fetch;
  return {
    fetch,
    requests,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

function source(fetch: typeof globalThis.fetch, clock: { now: number }) {
  return createTokenSource({
    tokenEndpoint: 'https://id.gatehouse.test/oidc/token',
    clientId: 'support-backend',
    clientSecret: SECRET,
    resource: 'https://id.gatehouse.test/api',
    scope: 'subject-tokens:create',
    fetch,
    now: () => clock.now,
  });
}

describe('createTokenSource', () => {
  it('asks with client credentials (HTTP Basic), the resource and the scope', async () => {
    const server = endpoint(3600);
    expect(await source(server.fetch, { now: 0 }).get()).toBe('token-1');
    expect(server.requests[0]!.url).toBe('https://id.gatehouse.test/oidc/token');
    expect(server.requests[0]!.authorization).toBe(
      `Basic ${Buffer.from(`support-backend:${SECRET}`).toString('base64')}`,
    );
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      resource: 'https://id.gatehouse.test/api',
      scope: 'subject-tokens:create',
    });
  });

  it('keeps the token until 30 s before it expires, then gets a new one', async () => {
    const server = endpoint(3600);
    const clock = { now: 0 };
    const tokens = source(server.fetch, clock);
    expect(await tokens.get()).toBe('token-1');
    clock.now = (3600 - 31) * 1000;
    expect(await tokens.get()).toBe('token-1');
    clock.now = (3600 - 30) * 1000;
    expect(await tokens.get()).toBe('token-2');
    expect(server.requests).toHaveLength(2);
  });

  it('renews a short-lived token half-way through its life', async () => {
    const server = endpoint(40);
    const clock = { now: 0 };
    const tokens = source(server.fetch, clock);
    await tokens.get();
    clock.now = 19_999;
    expect(await tokens.get()).toBe('token-1');
    clock.now = 20_000;
    expect(await tokens.get()).toBe('token-2');
  });

  it('shares one request between concurrent callers', async () => {
    const server = endpoint(3600);
    server.hold();
    const tokens = source(server.fetch, { now: 0 });
    const all = Promise.all([tokens.get(), tokens.get(), tokens.get()]);
    server.release();
    expect(await all).toEqual(['token-1', 'token-1', 'token-1']);
    expect(server.requests).toHaveLength(1);
  });

  it('gets a new token after invalidate()', async () => {
    const server = endpoint(3600);
    const tokens = source(server.fetch, { now: 0 });
    await tokens.get();
    tokens.invalidate();
    expect(await tokens.get()).toBe('token-2');
  });

  it('rejects with TokenRequestError naming the status and OAuth error, never the secret; the next call retries', async () => {
    const server = endpoint(3600, 401);
    const tokens = source(server.fetch, { now: 0 });
    const err = await tokens.get().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenRequestError);
    expect(err).toMatchObject({ status: 401, error: 'invalid_client' });
    expect((err as Error).message).not.toContain(SECRET);
    await expect(tokens.get()).rejects.toBeInstanceOf(TokenRequestError);
    expect(server.requests).toHaveLength(2);
  });
});
