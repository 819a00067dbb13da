import { createVerifier } from '@gatehouse/core';
import { expect, it, vi } from 'vitest';

// msw is an optional peer dependency: without it, handlers say so and the other modes still work.
vi.mock('msw', () => {
  throw new Error("Cannot find package 'msw'");
});

it('without msw, handlers throw a helpful error while fetch mode still works', async () => {
  const { createTestIssuer } = await import('../src/index.js');
  const issuer = await createTestIssuer();
  expect(() => issuer.handlers).toThrow(/msw is not installed/);
  expect(() => issuer.outage.serverError()).toThrow(/issuer\.fetch \/ issuer\.listen\(\)/);
  const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
  await expect(verifier.verify(await issuer.sign())).resolves.toMatchObject({ subject: 'user-1' });
});
