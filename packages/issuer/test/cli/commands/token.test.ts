/**
 * `gatehouse-issuer token`: a CLI-started issuer, a PAT made through the Management API, and the
 * printed access token validated by @gatehouse/core. Error paths name the option, never print the PAT.
 */
import { createVerifier } from '@gatehouse/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/run.js';
import type { Issuer } from '../../../src/index.js';
import { DRIVERS, freshDatabase } from '../../helpers/drivers.js';
import { clientCredentials, freePort, LogCapture } from '../../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  const ORDERS = 'https://orders.example.com';
  const ADMIN = { id: 'ci-admin', secret: 's'.repeat(40) };
  const WEB_SECRET = 'cli-web-secret-0123456789abcdefghijklmnop';
  let out: string[];
  let err: string[];
  let baseUrl: string;
  let issuer: Issuer;
  let pat: string;

  const io = (env: Record<string, string> = {}) => ({
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    cwd: process.cwd(),
    logs: new LogCapture(),
  });

  beforeAll(async () => {
    out = [];
    err = [];
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const started = await runCli(
      ['start', '--port', String(port), '--base-url', baseUrl, '--database', await freshDatabase(driver)],
      io({ GATEHOUSE_ADMIN_CLIENT_ID: ADMIN.id, GATEHOUSE_ADMIN_CLIENT_SECRET: ADMIN.secret }),
    );
    issuer = started.issuer!;
    await issuer.seed({
      resources: [{ name: 'Orders', indicator: ORDERS, scopes: ['read:orders', 'write:orders'] }],
      roles: [{ name: 'reader', type: 'User', scopes: [{ resource: ORDERS, scope: 'read:orders' }] }],
      users: [{ username: 'dev', roles: ['reader'] }],
      applications: [
        {
          name: 'CLI',
          type: 'Native',
          clientId: 'cli-native',
          redirectUris: ['http://127.0.0.1/cb'],
          tokenExchangeEnabled: true,
        },
        {
          name: 'Web',
          type: 'Traditional',
          clientId: 'cli-web',
          clientSecret: WEB_SECRET,
          redirectUris: ['http://127.0.0.1/cb'],
          tokenExchangeEnabled: true,
        },
      ],
    });
    const admin = await clientCredentials(baseUrl, ADMIN.id, ADMIN.secret, { resource: `${baseUrl}/api` });
    const dev = (await issuer.store.users.findByLogin('dev'))!.id;
    const created = await fetch(`${baseUrl}/api/users/${dev}/personal-access-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.body.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'laptop' }),
    });
    pat = ((await created.json()) as { value: string }).value;
  });
  afterAll(() => issuer?.close());
  beforeEach(() => {
    out = [];
    err = [];
  });

  describe('gatehouse-issuer token', () => {
    it('prints a JWT for the PAT’s user that @gatehouse/core accepts (public client)', async () => {
      const { code } = await runCli(
        [
          'token',
          '--pat',
          pat,
          '--resource',
          ORDERS,
          '--scope',
          'read:orders write:orders',
          '--client-id',
          'cli-native',
          '--base-url',
          baseUrl,
        ],
        io(),
      );
      expect(code).toBe(0);
      expect(out).toHaveLength(1);
      const token = out[0]!.trim();
      const verifier = createVerifier({ issuer: `${baseUrl}/oidc`, audience: ORDERS, strict: true });
      const auth = await verifier.verify(token, { scopes: 'read:orders' });
      expect(auth.subject).toBe((await issuer.store.users.findByLogin('dev'))!.id);
      expect(auth.clientId).toBe('cli-native');
      expect(auth.scopes).toEqual(['read:orders']);
      expect(err.join('')).toContain('scope "read:orders"');
      expect(err.join('')).not.toContain(pat);
    });

    it('takes the PAT, client id and secret from the environment (confidential client)', async () => {
      const { code } = await runCli(
        ['token', '--resource', ORDERS, '--base-url', baseUrl],
        io({ GATEHOUSE_PAT: pat, GATEHOUSE_CLIENT_ID: 'cli-web', GATEHOUSE_CLIENT_SECRET: WEB_SECRET }),
      );
      expect(code).toBe(0);
      expect(out[0]!.split('.')).toHaveLength(3);
    });

    it('an unknown PAT fails with the OAuth error and exit code 1, without echoing the value', async () => {
      const wrong = `gpat_${'x'.repeat(43)}`;
      const { code } = await runCli(
        ['token', '--pat', wrong, '--resource', ORDERS, '--client-id', 'cli-native', '--base-url', baseUrl],
        io(),
      );
      expect(code).toBe(1);
      expect(err.join('')).toContain(
        'invalid_request: the personal access token is unknown or has been revoked',
      );
      expect(err.join('')).not.toContain(wrong);
      expect(out).toEqual([]);
    });

    it('names a missing option (exit code 2); token options are refused by other commands', async () => {
      expect(
        (await runCli(['token', '--pat', pat, '--client-id', 'x', '--base-url', baseUrl], io())).code,
      ).toBe(2);
      expect(err.join('')).toContain('"--resource" is required');
      expect((await runCli(['token', '--resource', ORDERS, '--client-id', 'x'], io())).code).toBe(2);
      expect(err.join('')).toContain('"--pat" is required');
      expect((await runCli(['token', '--pat', pat, '--resource', ORDERS], io())).code).toBe(2);
      expect(err.join('')).toContain('"--client-id" is required');
      expect((await runCli(['migrate', '--pat', pat], io())).code).toBe(2);
      expect(err.join('')).toContain('"--pat" is an option of the token command only');
    });

    it('says so when the issuer is not running', async () => {
      const { code } = await runCli(
        [
          'token',
          '--pat',
          pat,
          '--resource',
          ORDERS,
          '--client-id',
          'cli-native',
          '--base-url',
          'http://127.0.0.1:1',
        ],
        io(),
      );
      expect(code).toBe(1);
      expect(err.join('')).toContain('cannot reach the issuer at http://127.0.0.1:1/oidc/token');
    });
  });
});
