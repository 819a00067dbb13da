/**
 * docs/issuer.md: the seed file (loaded twice: the second run changes nothing) and embedding the
 * issuer in a Node process. The walkthrough's shell commands run in walkthrough.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIssuer } from '@gatehouse/issuer';
import { describe, expect, it, vi } from 'vitest';

const quiet = { level: 'silent' as const };

describe('docs/issuer.md', () => {
  it('seeds the page’s seed file, and seeding it again changes nothing', async () => {
    const seed = JSON.parse(readFileSync(new URL('issuer-seed.json', import.meta.url), 'utf8'));
    const issuer = await createIssuer({ baseUrl: 'http://127.0.0.1:3001', database: ':memory:', log: quiet });
    try {
      const first = await issuer.seed(seed);
      expect(first).toMatchObject({
        resources: { created: 1, updated: 0 },
        roles: { created: 2, updated: 0 },
        users: { created: 1, updated: 0 },
        applications: { created: 2, updated: 0 },
      });
      // An application without clientSecret gets a generated one, returned once.
      expect(first.generatedSecrets.map((s) => s.name)).toEqual(['Orders worker']);
      const again = await issuer.seed(seed);
      expect(again).toMatchObject({
        resources: { created: 0, updated: 0 },
        roles: { created: 0, updated: 0 },
        users: { created: 0, updated: 0 },
        applications: { created: 0, updated: 0 },
        generatedSecrets: [],
      });
    } finally {
      await issuer.close();
    }
  });

  it('embeds the issuer in a Node process', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const issuer = await createIssuer({ baseUrl: 'http://127.0.0.1:3001', database: ':memory:' });
      console.log(issuer.admin.adminClientId, issuer.admin.adminClientSecret); // secret: first start only
      await issuer.seed({
        resources: [{ name: 'Orders API', indicator: 'https://orders.example.com', scopes: ['read:orders'] }],
      });
      const server = createServer(issuer.handler); // then server.listen(3001), or: await issuer.listen()
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const health = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/health`);
      expect(await health.json()).toEqual({ status: 'ok' });
      const before = issuer.jwks().keys[0]!.kid;
      await issuer.rotateKeys();
      expect(issuer.jwks().keys.map((key) => key.kid)).toEqual([expect.any(String), before]);
      server.closeAllConnections();
      server.close();
      await issuer.close();
      expect(log.mock.calls[0]![0]).toBe(issuer.admin.adminClientId);
    } finally {
      log.mockRestore();
    }
  });
});
