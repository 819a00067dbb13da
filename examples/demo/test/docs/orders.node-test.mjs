// test/orders.test.mjs — run with: node --test
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createVerifier } from '@gatehouse/core';
import { createTestIssuer, onUnhandledRequest } from '@gatehouse/testing';
import { setupServer } from 'msw/node';

const issuer = await createTestIssuer();
const server = setupServer(...issuer.handlers);
before(() => server.listen({ onUnhandledRequest }));
after(() => server.close());

it('refuses an expired token', async () => {
  const verifier = createVerifier(issuer.verifierOptions());
  await assert.rejects(verifier.verify(await issuer.tokens.expired()), { status: 401, reason: 'expired' });
});
