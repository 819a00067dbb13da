/**
 * The samples of docs/runtimes.md, each on its real runtime against the test issuer listening on
 * loopback (discovery, then the JWKS): a Next.js route handler (served here by `@hono/node-server`'s
 * request listener, as Next.js hands it a `Request`), `Bun.serve` run by Bun, and `Deno.serve` run by
 * Deno — bundled first with the `deno` export condition, as `deno run` does not read pnpm's
 * workspace links. Every process is stopped pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestIssuer, type IssuerServer } from '@gatehouse/testing';
import { getRequestListener } from '@hono/node-server';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const issuer = await createTestIssuer();
let issuerServer: IssuerServer;
const children: ChildProcess[] = [];
let scratch: string;

beforeAll(async () => {
  issuerServer = await issuer.listen();
  scratch = await mkdtemp(join(tmpdir(), 'gatehouse-docs-'));
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
  await rm(scratch, { recursive: true, force: true });
  await issuerServer?.close();
});

const env = () => ({ ISSUER: issuer.issuer, AUDIENCE: issuer.audience as string, PORT: '0' });

/** Start a runtime and resolve to the port it prints (`listening on http://…:PORT`). */
function start(command: string, args: string[]): Promise<number> {
  const child = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env(), NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} exited (${code})`)));
    for (const stream of [child.stdout!, child.stderr!])
      createInterface({ input: stream }).on('line', (line) => {
        const match = /istening on https?:\/\/[^\s:]+:(\d+)/.exec(line);
        if (match) resolve(Number(match[1]));
      });
  });
}

/** The three answers every sample must give. */
async function expectProtected(base: string): Promise<void> {
  const anonymous = await fetch(`${base}/orders`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
  const writer = await fetch(`${base}/orders`, {
    headers: { authorization: `Bearer ${await issuer.sign({ scope: 'write:orders' })}` },
  });
  expect(writer.status).toBe(403);
  expect(await writer.json()).toMatchObject({ error: 'insufficient_scope' });
  const reader = await fetch(`${base}/orders`, {
    headers: { authorization: `Bearer ${await issuer.sign({ sub: 'user-1', scope: 'read:orders' })}` },
  });
  expect(reader.status).toBe(200);
  expect(await reader.json()).toEqual({ orders: [], user: 'user-1' });
}

describe('docs/runtimes.md samples', () => {
  it('Next.js route handler', async () => {
    Object.assign(process.env, env());
    const { GET } = await import('./docs/next-route.ts');
    const server: Server = createServer(getRequestListener((request) => GET(request))).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await expectProtected(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    } finally {
      server.close();
    }
  });

  it('Bun.serve', async () => {
    const port = await start(join(root, 'node_modules', '.bin', 'bun'), [
      join(root, 'test', 'docs', 'bun-server.ts'),
    ]);
    await expectProtected(`http://127.0.0.1:${port}`);
  }, 60_000);

  it('Deno.serve', async () => {
    const script = join(scratch, 'deno-server.js');
    await build({
      entryPoints: [join(root, 'test', 'docs', 'deno-server.ts')],
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['deno'],
      mainFields: ['module', 'main'],
      outfile: script,
      logLevel: 'warning',
    });
    const port = await start(join(root, 'node_modules', '.bin', 'deno'), [
      'run',
      '--allow-net',
      '--allow-env',
      script,
    ]);
    await expectProtected(`http://127.0.0.1:${port}`);
  }, 60_000);
});
