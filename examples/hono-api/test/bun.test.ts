/**
 * The same orders API on Bun (src/server-bun.ts), started as a real Bun process from the `bun` npm
 * package against the test issuer listening on loopback, and stopped pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createTestIssuer, type IssuerServer } from '@gatehouse/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const issuer = await createTestIssuer();
let issuerServer: IssuerServer;
let bun: ChildProcess;
let base: string;
const lines: string[] = [];

beforeAll(async () => {
  issuerServer = await issuer.listen();
  bun = spawn(join(root, 'node_modules', '.bin', 'bun'), [join(root, 'src', 'server-bun.ts')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ISSUER: issuer.issuer,
      AUDIENCE: issuer.audience as string,
      JWKS_URI: issuer.jwksUri,
      ALLOW_INSECURE_HTTP: '1',
      PORT: '0',
    },
  });
  base = await new Promise<string>((resolve, reject) => {
    bun.once('exit', (code) => reject(new Error(`bun exited (${code})`)));
    createInterface({ input: bun.stdout! }).on('line', (line) => {
      lines.push(line);
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve(match[1]!);
    });
  });
}, 60_000);

afterAll(async () => {
  if (bun !== undefined && bun.exitCode === null && bun.signalCode === null) {
    const exited = once(bun, 'exit');
    process.kill(-bun.pid!, 'SIGTERM');
    await exited;
  }
  await issuerServer?.close();
});

it('answers 401 without a token and 200 with read:orders, on Bun', async () => {
  expect((await fetch(`${base}/orders`)).status).toBe(401);
  const token = await issuer.sign({ scope: 'read:orders' });
  const res = await fetch(`${base}/orders`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ orders: [] });
});

it('writes the impersonation audit line on Bun, without the token', async () => {
  const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'read:orders' });
  expect((await fetch(`${base}/orders`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  await expect.poll(() => lines.some((l) => l.includes('"impersonation"'))).toBe(true);
  const audit = JSON.parse(lines.find((l) => l.includes('"impersonation"'))!);
  expect(audit).toMatchObject({ subject: 'customer-42', actor: 'support-7', path: '/orders' });
  expect(lines.join('\n')).not.toContain(token.split('.')[2]);
});

it('refuses DELETE under impersonation with 403 on Bun', async () => {
  const token = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
  const res = await fetch(`${base}/orders/x`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(403);
  expect(await res.json()).toMatchObject({ error: 'access_denied' });
});
