/**
 * Test helpers: a verifier from @gatehouse/core wired to a test issuer (in-memory fetch unless told
 * otherwise), and a matcher for the rejection reason.
 */
import { createVerifier, type Verifier, type VerifierOptions } from '@gatehouse/core';
import { expect } from 'vitest';
import type { TestIssuer } from '../../src/index.js';

/** A core verifier for `issuer`, fetching through `issuer.fetch`, with no cooldown so rotations show at once. */
export function verifierFor(issuer: TestIssuer, options: Partial<VerifierOptions> = {}): Verifier {
  return createVerifier({
    ...issuer.verifierOptions(),
    fetch: issuer.fetch,
    ...options,
    jwks: { cooldown: 0, ...options.jwks },
  });
}

/** Assert that verifying `token` fails with `reason` (and a 401 unless said otherwise). */
export async function expectRejected(
  verifier: Verifier,
  token: string,
  reason: string | string[],
  status = 401,
) {
  const error = await verifier.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected a rejection with reason ${String(reason)}`).toBeDefined();
  const reasons = Array.isArray(reason) ? reason : [reason];
  expect(reasons).toContain((error as { reason?: string }).reason);
  expect((error as { status?: number }).status).toBe(status);
}

/** Decode the header and payload of a compact JWS (no verification). */
export function decode(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(p!, 'base64url').toString('utf8')),
  };
}
