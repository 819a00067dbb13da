/**
 * The compiled server (`pnpm build`: tsup, as `pnpm start` runs it) as a real process, on both
 * platforms: proves that esbuild's output of Nest's decorators wires every injection without decorator
 * metadata, in the app and in `@gatehouse/nestjs`'s own build (the server imports its dist).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { createTestIssuer, type IssuerServer, type TestIssuer } from '@gatehouse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const AUDIENCE = 'https://api.example.com';
let issuer: TestIssuer;
let issuerServer: IssuerServer;

beforeAll(async () => {
  await promisify(execFile)(join(root, 'node_modules/.bin/tsup'), [], { cwd: root });
  issuer = await createTestIssuer({ audience: AUDIENCE });
  issuerServer = await issuer.listen();
}, 120_000);
afterAll(() => issuerServer?.close());

/** Start `node dist/server.js`; resolves with its URL and every line it printed. */
async function startServer(platform: string) {
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: { ...process.env, ISSUER: issuerServer.issuer, AUDIENCE, PLATFORM: platform, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited (${code}): ${lines.join('\n')}`)));
  });
  return { child, lines, url: await url };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  return code as number | null;
}

describe.each(['express', 'fastify'])('the compiled server on %s', (platform) => {
  it('protects the orders, audits impersonation on stdout without the token, and stops on SIGTERM', async () => {
    const { child, lines, url } = await startServer(platform);
    try {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      const anonymous = await fetch(`${url}/orders`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
      const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
      const res = await fetch(`${url}/orders`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ orders: [] });
      const audit = lines.find((line) => line.includes('"event":"impersonation"'));
      expect(JSON.parse(audit!)).toMatchObject({
        subject: 'customer-42',
        actor: 'support-7',
        path: '/orders',
      });
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});
