/**
 * The orders API as a Worker on a real `workerd` (from the `workerd` npm package), with the example's
 * own config.capnp and bundle (scripts/build.ts), against the test issuer listening on loopback: the
 * Worker fetches the JWKS from inside workerd. The process is stopped pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createTestIssuer, type IssuerServer } from '@gatehouse/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../../test/support/ports.js';
import { buildWorker } from '../scripts/build.ts';

const root = join(import.meta.dirname, '..');
const issuer = await createTestIssuer();
let issuerServer: IssuerServer;
let workerd: ChildProcess;
let base: string;
let output = '';

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    }).on('error', () => resolve(false));
  });

beforeAll(async () => {
  issuerServer = await issuer.listen();
  await buildWorker();
  const port = await freePort();
  workerd = spawn(
    join(root, 'node_modules', '.bin', 'workerd'),
    ['serve', join(root, 'config.capnp'), '--socket-addr', `http=127.0.0.1:${port}`, '--verbose'],
    {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ISSUER: issuer.issuer,
        AUDIENCE: issuer.audience as string,
        JWKS_URI: issuer.jwksUri,
        ALLOW_INSECURE_HTTP: '1',
      },
    },
  );
  for (const stream of [workerd.stdout!, workerd.stderr!])
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
  const deadline = Date.now() + 30_000;
  while (!(await accepts(port))) {
    if (workerd.exitCode !== null || Date.now() > deadline)
      throw new Error(`workerd did not start\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  if (workerd !== undefined && workerd.exitCode === null && workerd.signalCode === null) {
    const exited = once(workerd, 'exit');
    process.kill(-workerd.pid!, 'SIGTERM');
    await exited;
  }
  await issuerServer?.close();
});

const bearer = (token: string, init: RequestInit = {}) => ({
  ...init,
  headers: { authorization: `Bearer ${token}`, ...init.headers },
});

it('answers 401 without a token, 403 without the scope, 200 with it — keys fetched from inside workerd', async () => {
  const anonymous = await fetch(`${base}/orders`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
  expect((await fetch(`${base}/orders`, bearer(await issuer.sign({ scope: 'write:orders' })))).status).toBe(
    403,
  );
  const res = await fetch(`${base}/orders`, bearer(await issuer.sign({ scope: 'read:orders' })));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ orders: [] });
});

it('refuses a forged token with 401 invalid_token, never a 500', async () => {
  const token = await issuer.sign({ scope: 'read:orders' });
  const res = await fetch(`${base}/orders`, bearer(`${token.slice(0, -4)}AAAA`));
  expect(res.status).toBe(401);
  expect(await res.json()).toMatchObject({ error: 'invalid_token' });
});

it('creates an order, refuses DELETE under impersonation (403) and writes the audit line', async () => {
  const owner = await issuer.sign({ sub: 'customer-42', scope: 'read:orders write:orders' });
  const created = await fetch(
    `${base}/orders`,
    bearer(owner, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'coffee', quantity: 2 }),
    }),
  );
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const support = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'write:orders' });
  const refused = await fetch(`${base}/orders/${id}`, bearer(support, { method: 'DELETE' }));
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ error: 'access_denied' });
  await expect.poll(() => output.includes('"impersonation"')).toBe(true);
  const line = output.split('\n').find((l) => l.includes('"impersonation"'))!;
  expect(JSON.parse(line.slice(line.indexOf('{')))).toMatchObject({
    method: 'DELETE',
    subject: 'customer-42',
    actor: 'support-7',
  });
  expect(output).not.toContain(support.split('.')[2]);
  expect((await fetch(`${base}/orders/${id}`, bearer(owner, { method: 'DELETE' }))).status).toBe(204);
});
