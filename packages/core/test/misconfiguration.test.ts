/**
 * A misconfiguration is never silent (src/internal/explain.ts, the `onWarning` option, `warmUp()`):
 * against real loopback issuers, each configuration problem is explained once to the developer — with
 * the configured issuer and what was found instead — while clients keep getting a generic 503; typos
 * in option names and empty scope requirements are refused when the verifier is created.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createVerifier,
  KeySetError,
  KeysUnavailableError,
  resolveAdapterOptions,
  resolveScopeRequirement,
  type VerifierOptions,
} from '../src/index.js';
import { AUDIENCE, claims, jwksOf, makeKey, signToken } from './helpers/fixtures.js';

const key = makeKey('ES256', 'misconfig-1');
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A loopback issuer at `/oidc` whose metadata names `named(origin)` as its issuer and serves `jwks`. */
async function issuerServer(
  named: (origin: string) => string,
  jwks: unknown = jwksOf(key),
  make: (handler: Parameters<typeof createServer>[1]) => Server = (h) => createServer(h),
  scheme = 'http',
): Promise<{ origin: string }> {
  let origin = '';
  const server = make((req, res) => {
    if (req.url === '/oidc/.well-known/openid-configuration') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ issuer: named(origin), jwks_uri: `${origin}/oidc/jwks` }));
    } else if (req.url === '/oidc/jwks') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
    } else res.writeHead(404).end();
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin };
}

interface Case {
  readonly name: string;
  readonly setup: () => Promise<Partial<VerifierOptions> & { issuer: string }>;
  readonly code: KeySetError['code'];
  readonly kind: KeySetError['kind'];
  /** Text the explanation must contain besides the configured issuer. */
  readonly says: readonly string[];
}

const CASES: Case[] = [
  {
    name: 'the issuer is 127.0.0.1 where the metadata (and the tokens) say localhost',
    setup: async () => {
      const { origin } = await issuerServer((o) => `${o.replace('127.0.0.1', 'localhost')}/oidc`);
      return { issuer: `${origin}/oidc` };
    },
    code: 'issuer_mismatch',
    kind: 'configuration',
    says: ['the metadata names issuer "http://localhost:', 'localhost is not 127.0.0.1'],
  },
  {
    name: 'the issuer misses its /oidc path',
    setup: async () => {
      const { origin } = await issuerServer((o) => `${o}/oidc`);
      return { issuer: origin };
    },
    code: 'metadata_not_found',
    kind: 'configuration',
    says: [
      'no metadata at',
      '/.well-known/openid-configuration (HTTP 404)',
      'is a path such as /oidc missing?',
    ],
  },
  {
    name: 'the issuer has a trailing slash the metadata does not',
    setup: async () => {
      const { origin } = await issuerServer((o) => `${o}/oidc`);
      return { issuer: `${origin}/oidc/` };
    },
    code: 'issuer_mismatch',
    kind: 'configuration',
    says: ['trailing slash'],
  },
  {
    name: 'the JWKS holds no usable key',
    setup: async () => {
      const { origin } = await issuerServer((o) => `${o}/oidc`, { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] });
      return { issuer: `${origin}/oidc` };
    },
    code: 'no_usable_key',
    kind: 'configuration',
    says: ['the JWKS holds no usable verification key', '/oidc/jwks'],
  },
  {
    name: 'the jwksUri points at a page that is not there',
    setup: async () => {
      const { origin } = await issuerServer((o) => `${o}/oidc`);
      return { issuer: `${origin}/oidc`, jwksUri: `${origin}/oidc/jwks.json` };
    },
    code: 'http_error',
    kind: 'configuration',
    says: ['HTTP 404', '/oidc/jwks.json'],
  },
  {
    name: "the issuer's certificate is not trusted (a self-signed TLS server)",
    setup: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-tls-'));
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=127.0.0.1',
            '-addext',
            'subjectAltName=IP:127.0.0.1',
            '-keyout',
            join(dir, 'k.pem'),
            '-out',
            join(dir, 'c.pem'),
          ],
          { stdio: 'ignore' },
        );
        const tls = { cert: readFileSync(join(dir, 'c.pem')), key: readFileSync(join(dir, 'k.pem')) };
        const { origin } = await issuerServer(
          (o) => `${o}/oidc`,
          jwksOf(key),
          (h) => createHttpsServer(tls, h) as unknown as Server,
          'https',
        );
        return { issuer: `${origin}/oidc` };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    code: 'tls',
    kind: 'configuration',
    says: ['TLS error', 'NODE_EXTRA_CA_CERTS'],
  },
  {
    name: 'the host name cannot be resolved',
    setup: async () => ({
      issuer: 'https://id.exmaple.com/oidc',
      fetch: async () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }),
        });
      },
    }),
    code: 'host_not_found',
    kind: 'configuration',
    says: ['cannot be resolved', 'id.exmaple.com'],
  },
  {
    name: 'the issuer is down (connection refused): an outage, not a configuration problem',
    setup: async () => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise((r) => probe.close(r));
      return { issuer: `http://127.0.0.1:${port}/oidc` };
    },
    code: 'connection_failed',
    kind: 'outage',
    says: ['ECONNREFUSED', 'answered 503 until'],
  },
];

describe('a configuration problem is explained, once, and clients get a generic 503', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const options = await c.setup();
    const warnings: KeySetError[] = [];
    const verifier = createVerifier({ audience: AUDIENCE, ...options, onWarning: (w) => warnings.push(w) });

    const boot = await verifier.warmUp().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(boot).toBeInstanceOf(KeySetError);
    const error = boot as KeySetError;
    expect({ code: error.code, kind: error.kind, issuer: error.issuer }).toEqual({
      code: c.code,
      kind: c.kind,
      issuer: options.issuer,
    });
    expect(error.message).toContain(`cannot get the signing keys of issuer "${options.issuer}"`);
    for (const text of c.says) expect(error.message).toContain(text);

    // Requests meanwhile: a generic 503 for the client, the explanation as its cause, no new warning.
    const token = signToken(key, claims({ iss: options.issuer }));
    for (let i = 0; i < 3; i++) {
      const refused = await verifier.verify(token).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(KeysUnavailableError);
      expect((refused as KeysUnavailableError).toJSON()).toEqual({
        error: 'temporarily_unavailable',
        error_description: 'The signing keys cannot be retrieved right now; try again later',
      });
      expect((refused as KeysUnavailableError).cause).toBeInstanceOf(KeySetError);
      expect(JSON.stringify(refused)).not.toContain(options.issuer);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toBe(error.message);
    expect(warnings[0]!.message).not.toContain(token.slice(0, 20));
  });

  it('the default onWarning writes one line to the console; false silences it', async () => {
    const { origin } = await issuerServer((o) => `${o.replace('127.0.0.1', 'localhost')}/oidc`);
    const lines: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      lines.push(args.join(' '));
    };
    try {
      await createVerifier({ issuer: `${origin}/oidc`, audience: AUDIENCE })
        .warmUp()
        .catch(() => {});
      await createVerifier({ issuer: `${origin}/oidc`, audience: AUDIENCE, onWarning: false })
        .warmUp()
        .catch(() => {});
    } finally {
      console.warn = original;
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^gatehouse: cannot get the signing keys of issuer "http:\/\/127\.0\.0\.1:\d+\/oidc": the metadata names issuer "http:\/\/localhost:/,
    );
  });

  it('a logger that throws does not change the answer', async () => {
    const { origin } = await issuerServer((o) => `${o}/other`);
    const verifier = createVerifier({
      issuer: `${origin}/oidc`,
      audience: AUDIENCE,
      onWarning: () => {
        throw new Error('logger down');
      },
    });
    await expect(verifier.verify(signToken(key, claims({ iss: `${origin}/oidc` })))).rejects.toBeInstanceOf(
      KeysUnavailableError,
    );
  });
});

describe('options that cannot be mistyped', () => {
  const base = { issuer: 'https://id.example.com/oidc', audience: AUDIENCE };

  it.each([
    [{ jwksUrl: 'https://id.example.com/jwks' }, 'unknown option "jwksUrl" (did you mean "jwksUri"?)'],
    [{ audiance: AUDIENCE }, 'unknown option "audiance" (did you mean "audience"?)'],
    [{ clocktolerance: 5 }, 'unknown option "clocktolerance" (did you mean "clockTolerance"?)'],
    [{ jwks: { cooldwn: 1 } }, 'unknown option "jwks.cooldwn" (did you mean "jwks.cooldown"?)'],
    [{ cache: { maximum: 1 } }, 'unknown option "cache.maximum"'],
    [
      { tokenSources: { querry: true } },
      'unknown option "tokenSources.querry" (did you mean "tokenSources.query"?)',
    ],
    [{ onWarning: 'console' }, '"onWarning" option must be a function or false'],
  ])('createVerifier refuses %j', (extra, message) => {
    expect(() => createVerifier({ ...base, ...(extra as object) } as VerifierOptions)).toThrow(
      new TypeError(message),
    );
  });

  it('adapter options refuse typos of their own, of verifier options and of metadata options', () => {
    expect(() => resolveAdapterOptions({ ...base, optinal: true } as never)).toThrow(
      'unknown option "optinal" (did you mean "optional"?)',
    );
    expect(() => resolveAdapterOptions({ ...base, jwksUrl: 'https://x' } as never)).toThrow(
      'did you mean "jwksUri"?',
    );
    expect(() =>
      resolveAdapterOptions({ ...base, resourceMetadata: { scopeSupported: [] } } as never),
    ).toThrow(
      'unknown option "resourceMetadata.scopeSupported" (did you mean "resourceMetadata.scopesSupported"?)',
    );
    expect(() => resolveScopeRequirement('read:orders', { allowDelegaton: false } as never)).toThrow(
      'did you mean "allowDelegation"?',
    );
  });

  it.each([[''], ['   '], [[]], [['', ' ']]])(
    'an empty scope requirement %j is refused everywhere',
    async (scopes) => {
      expect(() => resolveScopeRequirement(scopes as string)).toThrow(TypeError);
      expect(() => createVerifier({ ...base, requiredScopes: scopes as string })).toThrow('"requiredScopes"');
      const { origin } = await issuerServer((o) => `${o}/oidc`);
      const verifier = createVerifier({ issuer: `${origin}/oidc`, audience: AUDIENCE });
      const token = signToken(key, claims({ iss: `${origin}/oidc` }));
      await expect(verifier.verify(token)).resolves.toBeDefined();
      await expect(verifier.verify(token, { scopes: scopes as string })).rejects.toBeInstanceOf(TypeError);
    },
  );
});
