/**
 * Core's two builds, picked by name (`@gatehouse/core/node`, `@gatehouse/core/web`) as on a runtime or
 * bundler without the `bun`/`deno`/`workerd`/`browser` conditions: on Node, the web build verifies a
 * token with WebCrypto and imports no Node built-in (its dependencies pick their own build by the
 * runtime's conditions), while the Node build uses `node:crypto`. The web builds of core and of
 * `@gatehouse/hono` hold no Node-only code (`nodeRequestLike`, `@gatehouse/core/node`). Runs the built
 * packages in child processes (build first), with no test-runner transform.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const core = join(root, 'packages/core');
const AUDIENCE = 'https://api.example.com';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url');

let server: Server;
let issuer: string;

beforeAll(async () => {
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function token(): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64(JSON.stringify({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' }));
  const payload = b64(
    JSON.stringify({
      iss: issuer,
      sub: 'user-42',
      aud: AUDIENCE,
      client_id: 'c1',
      iat: now,
      exp: now + 300,
      jti: randomUUID(),
    }),
  );
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${header}.${payload}.${b64(signature)}`;
}

/** Run the docs sample with the build named `build`, behind the import probe. */
async function pick(build: 'node' | 'web') {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', './test/fixtures/probe-imports.mjs', './test/fixtures/pick-build.mjs'],
    {
      cwd: core,
      env: {
        ...process.env,
        GATEHOUSE_BUILD: build,
        ISSUER: issuer,
        AUDIENCE,
        JWKS_URI: `${issuer}/jwks`,
        TOKEN: token(),
      },
    },
  );
  const [printed = '', probe = '{}'] = stdout.trim().split('\n');
  return { printed, ...(JSON.parse(probe) as { imported: string[]; subtleVerifies: number }) };
}

/** The module specifiers a bundle imports statically or dynamically. */
function importsOf(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  return [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
}

const isBuiltin = (specifier: string) =>
  specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

describe('@gatehouse/core builds picked by name', () => {
  it('@gatehouse/core/web verifies with WebCrypto on Node and loads no Node built-in', async () => {
    const run = await pick('web');
    expect(run.printed).toBe('web user-42');
    expect(run.subtleVerifies).toBeGreaterThan(0);
    expect(run.imported).toEqual([]);
  });

  it('@gatehouse/core/node verifies with node:crypto', async () => {
    const run = await pick('node');
    expect(run.printed).toBe('node user-42');
    expect(run.subtleVerifies).toBe(0);
    expect(run.imported).toContain('crypto');
  });

  it('both builds load by require too', async () => {
    const script = `for (const b of ['web', 'node']) console.log(require('@gatehouse/core/' + b).PLATFORM)`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: core });
    expect(stdout.trim().split('\n')).toEqual(['web', 'node']);
  });

  it('the web builds import no Node built-in and hold no Node-only export', () => {
    for (const file of ['packages/core/dist/web/index.js', 'packages/hono/dist/web/index.js']) {
      const imports = importsOf(join(root, file));
      expect(imports.filter(isBuiltin), file).toEqual([]);
      expect(imports, file).not.toContain('@gatehouse/core/node');
      expect(readFileSync(join(root, file), 'utf8'), file).not.toContain('nodeRequestLike');
    }
    expect(importsOf(join(root, 'packages/hono/dist/index.js'))).toContain('@gatehouse/core/node');
    expect(readFileSync(join(core, 'dist/web/index.d.ts'), 'utf8')).not.toContain('nodeRequestLike');
    expect(readFileSync(join(core, 'dist/index.d.ts'), 'utf8')).toContain('nodeRequestLike');
  });

  it('the subpaths name the same builds as the conditions, with the same API but the Node-only view', () => {
    const manifest = JSON.parse(readFileSync(join(core, 'package.json'), 'utf8'));
    const { '.': main, './node': node, './web': web } = manifest.exports;
    expect(web.import.default).toBe(main.bun.default);
    expect(node.import.default).toBe(main.import.node);
    expect(node.require.default).toBe(main.require.default);
  });
});

/** Run test/fixtures/telemetry-build.mjs (from `fixture`) with one build of core; its JSON line. */
async function traced(
  build: 'node' | 'web',
  format: 'esm' | 'cjs',
  options: { fixture?: string; dist?: string; noBuiltin?: boolean } = {},
) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [options.fixture ?? join(core, 'test/fixtures/telemetry-build.mjs')],
    {
      cwd: core,
      env: {
        ...process.env,
        // pnpm's vitest launcher sets it to its hoisted packages, where @opentelemetry/api is too.
        NODE_PATH: '',
        BUILD: build,
        FORMAT: format,
        ...(options.dist === undefined ? {} : { CORE_DIST: options.dist }),
        ...(options.noBuiltin === true ? { NO_BUILTIN: '1' } : {}),
        ISSUER: issuer,
        AUDIENCE,
        JWKS_URI: `${issuer}/jwks`,
        TOKEN: token(),
      },
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as {
    platform: string;
    subject: string;
    before: [string, string][] | null;
    after: [string, string][] | null;
    resolved: string[];
  };
}

describe('OpenTelemetry in the builds (@opentelemetry/api an optional peer)', () => {
  it.each([
    ['node', 'esm'],
    ['node', 'cjs'],
    ['web', 'esm'],
    ['web', 'cjs'],
  ] as const)(
    'the %s build (%s) loads the API synchronously: the first call is traced',
    async (build, format) => {
      const run = await traced(build, format);
      expect(run.platform).toBe(build);
      expect(run.subject).toBe('user-42');
      expect(run.before).toEqual([['gatehouse.authenticate', 'ok']]);
      expect(run.after).toHaveLength(2);
      expect(run.resolved).toEqual(['@opentelemetry/api']); // once per process
    },
  );

  it.each(['node', 'web'] as const)(
    'without process.getBuiltinModule, the %s build imports it: traced once warmUp() has awaited it',
    async (build) => {
      const run = await traced(build, 'esm', { noBuiltin: true });
      expect(run.subject).toBe('user-42');
      expect(run.before).toEqual([]);
      expect(run.after).toEqual([['gatehouse.authenticate', 'ok']]);
      expect(run.resolved).toEqual(['@opentelemetry/api']);
    },
  );

  it('not installed: every build verifies as before, the package looked for once, never imported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-no-otel-'));
    try {
      cpSync(join(core, 'dist'), join(dir, 'dist'), { recursive: true });
      cpSync(join(core, 'test/fixtures/telemetry-build.mjs'), join(dir, 'fixture.mjs'));
      for (const name of ['lru-cache', '@noble/hashes']) {
        mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
        symlinkSync(realpathSync(join(core, 'node_modules', name)), join(dir, 'node_modules', name));
      }
      for (const [build, format] of [
        ['node', 'esm'],
        ['node', 'cjs'],
        ['web', 'esm'],
        ['web', 'cjs'],
      ] as const) {
        const run = await traced(build, format, {
          fixture: join(dir, 'fixture.mjs'),
          dist: join(dir, 'dist'),
        });
        expect(run).toEqual({
          platform: build,
          subject: 'user-42',
          before: null,
          after: null,
          resolved: ['@opentelemetry/api'],
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
