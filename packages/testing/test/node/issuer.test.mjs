// Runs under node's own test runner (`node --test`), against the BUILT package (dist/), to prove that
// @gatehouse/testing needs neither vitest nor its module aliases. test/node-runner.test.ts spawns it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifier, KeysUnavailableError } from '@gatehouse/core';
import { createTestIssuer } from '@gatehouse/testing';
import { setupServer } from 'msw/node';

describe('@gatehouse/testing under node:test', () => {
  describe('with msw', () => {
    let issuer;
    let server;
    before(async () => {
      issuer = await createTestIssuer();
      server = setupServer(...issuer.handlers);
      server.listen({ onUnhandledRequest: 'error' });
    });
    after(() => server.close());

    it('signs tokens that core verifies through discovery', async () => {
      const verifier = createVerifier({ issuer: issuer.issuer, audience: issuer.audience, strict: true });
      const auth = await verifier.verify(await issuer.sign({ scope: 'read:orders' }));
      assert.equal(auth.subject, 'user-1');
      assert.deepEqual(auth.scopes, ['read:orders']);
    });

    it('gives bad tokens their reasons', async () => {
      const verifier = createVerifier(issuer.verifierOptions());
      await assert.rejects(verifier.verify(await issuer.tokens.expired()), {
        reason: 'expired',
        status: 401,
      });
      await assert.rejects(verifier.verify(await issuer.tokens.wrongAudience()), { reason: 'audience' });
    });

    it('simulates an outage for the 503 path', async () => {
      server.use(issuer.outage.serverError({ once: true }));
      const verifier = createVerifier(issuer.verifierOptions());
      await assert.rejects(verifier.verify(await issuer.sign()), (error) => {
        assert.ok(error instanceof KeysUnavailableError);
        assert.equal(error.status, 503);
        return true;
      });
    });
  });

  it('works without msw through issuer.fetch', async () => {
    const issuer = await createTestIssuer({ alg: 'EdDSA' });
    const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
    const auth = await verifier.verify(await issuer.impersonation('support-7'));
    assert.deepEqual(auth.actor, { sub: 'support-7' });
  });

  it('serves a loopback issuer with listen()', async () => {
    const issuer = await createTestIssuer();
    const server = await issuer.listen();
    try {
      assert.match(issuer.issuer, /^http:\/\/127\.0\.0\.1:\d+\/oidc$/);
      const verifier = createVerifier({ issuer: issuer.issuer, audience: issuer.audience });
      assert.equal((await verifier.verify(await issuer.sign())).issuer, issuer.issuer);
    } finally {
      await server.close();
    }
  });
});
