import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADAPTER_DEFAULTS, KeySetError } from '@gatehouse/core';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, requireAuth, requireScope } from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

/** A loopback issuer whose metadata names another issuer (localhost where the API says 127.0.0.1). */
async function misconfiguredIssuer(): Promise<{ issuer: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    const port = (server.address() as AddressInfo).port;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ issuer: `http://localhost:${port}/oidc`, jwks_uri: `http://localhost:${port}/jwks` }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}/oidc`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('DEFAULTS', () => {
  it('is frozen, protective by default, and the shared adapter defaults', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({
      optional: false,
      allowDelegation: true,
      handleErrors: true,
      mode: 'all',
      warmUp: false,
    });
    expect(DEFAULTS).toBe(ADAPTER_DEFAULTS);
  });
});

describe('option validation at construction', () => {
  it('names the bad option in a TypeError', () => {
    expect(() => requireAuth({ ...base, optional: 'yes' } as never)).toThrow(
      '"optional" option must be a boolean',
    );
    expect(() => requireAuth({ ...base, clockTolerance: 301 })).toThrow(TypeError);
    expect(() => requireScope('a', { mode: 'some' } as never)).toThrow(
      '"mode" option must be "all" or "any"',
    );
    expect(() => requireScope([42] as never)).toThrow(TypeError);
  });
});

describe('a misconfiguration is never silent', () => {
  it('refuses a mistyped option with the closest known name, and an empty scope requirement', () => {
    expect(() => requireAuth({ ...base, jwksUrl: 'https://id.example.com/jwks' } as never)).toThrow(
      'unknown option "jwksUrl" (did you mean "jwksUri"?)',
    );
    for (const empty of ['', '  ', []]) expect(() => requireScope(empty)).toThrow(TypeError);
  });

  it('ready() rejects with the explanation; warmUp reports it through onWarning at once', async () => {
    const issuer = await misconfiguredIssuer();
    try {
      const warnings: KeySetError[] = [];
      const auth = requireAuth({
        ...base,
        issuer: issuer.issuer,
        warmUp: true,
        onWarning: (w) => warnings.push(w),
      });
      const error = await auth.ready().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(KeySetError);
      expect((error as KeySetError).code).toBe('issuer_mismatch');
      expect((error as KeySetError).message).toContain(`"${issuer.issuer}"`);
      expect(warnings.map((w) => w.code)).toEqual(['issuer_mismatch']);
    } finally {
      await issuer.close();
    }
  });
});
