/** Discovery (cached once, failures not cached, issuer checked) and browser endpoint checks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerResponseError } from '../../src/errors.js';
import { Context } from '../../src/internal/context.js';
import { resolveOptions } from '../../src/options.js';
import { type StubIssuer, startStubIssuer } from '../helpers/stub-issuer.js';

let stub: StubIssuer;
const discoveries: string[] = [];

beforeAll(async () => {
  stub = await startStubIssuer();
});
afterAll(async () => {
  await stub?.close();
});

function context(extra: Record<string, unknown> = {}) {
  return new Context(
    resolveOptions({
      issuer: stub.issuer,
      allowInsecureRequests: true,
      clientId: 'console',
      redirectUri: 'http://127.0.0.1:1/cb',
      resources: [],
      scopes: [],
      fetch: (url, init) => {
        discoveries.push(url);
        return fetch(url, init);
      },
      ...extra,
    }),
  );
}

describe('Context.metadata', () => {
  it('discovers once and shares the result', async () => {
    discoveries.length = 0;
    const ctx = context();
    const [a, b] = await Promise.all([ctx.metadata(), ctx.metadata()]);
    expect(a).toBe(b);
    expect(await ctx.metadata()).toBe(a);
    expect(a.token_endpoint).toBe(`${stub.issuer}/token`);
    expect(discoveries).toEqual([`${stub.issuer}/.well-known/openid-configuration`]);
  });

  it('does not cache a failure', async () => {
    const ctx = context();
    const saved = stub.metadata.issuer;
    stub.metadata.issuer = 'https://evil.example.com/oidc';
    try {
      await expect(ctx.metadata()).rejects.toBeInstanceOf(ServerResponseError);
    } finally {
      stub.metadata.issuer = saved;
    }
    expect((await ctx.metadata()).issuer).toBe(stub.issuer);
  });
});

describe('Context.browserEndpoint', () => {
  it('accepts https and allowed http, refuses the rest', () => {
    const ctx = context();
    expect(ctx.browserEndpoint('https://id.example.com/auth', 'authorization_endpoint').href).toBe(
      'https://id.example.com/auth',
    );
    expect(ctx.browserEndpoint('http://127.0.0.1:3001/auth', 'authorization_endpoint').host).toBe(
      '127.0.0.1:3001',
    );
    expect(() => ctx.browserEndpoint('http://id.example.com/auth', 'authorization_endpoint')).toThrow(
      /authorization_endpoint does not use https:/,
    );
    expect(() => ctx.browserEndpoint(undefined, 'end_session_endpoint')).toThrow(ServerResponseError);
    expect(() => ctx.browserEndpoint('not a url', 'end_session_endpoint')).toThrow(ServerResponseError);
  });
});
