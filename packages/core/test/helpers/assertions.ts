/**
 * Exact-outcome assertions for verifier errors: class, HTTP status, OAuth code, `reason`, and the
 * shape of the `WWW-Authenticate` challenge (an `error` attribute, or a bare `Bearer realm=…`).
 */
import { assert, expect } from 'vitest';
import {
  type AuthError,
  type AuthErrorReason,
  InvalidRequestError,
  InvalidTokenError,
  type InvalidTokenReason,
  MissingTokenError,
} from '../../src/index.js';

export interface ExpectedError {
  readonly type: abstract new (...args: never[]) => AuthError;
  readonly status: number;
  readonly code: string | undefined;
  readonly reason: AuthErrorReason;
}

/** IT: `401` + `error="invalid_token"`. */
export const invalidToken = (reason: InvalidTokenReason): ExpectedError => ({
  type: InvalidTokenError,
  status: 401,
  code: 'invalid_token',
  reason,
});

/** IR: `400 invalid_request`. */
export const invalidRequest = (reason: 'multiple_tokens' | 'bad_syntax'): ExpectedError => ({
  type: InvalidRequestError,
  status: 400,
  code: 'invalid_request',
  reason,
});

/** bare401: `401` + `Bearer realm=…` with no `error` attribute. */
export const missingToken: ExpectedError = {
  type: MissingTokenError,
  status: 401,
  code: undefined,
  reason: 'missing_token',
};

/** Assert that `error` is exactly the expected AuthError, challenge included. */
export function expectError(error: unknown, expected: ExpectedError): AuthError {
  expect(error).toBeInstanceOf(expected.type);
  const e = error as AuthError;
  expect({ status: e.status, code: e.code, reason: e.reason }).toEqual({
    status: expected.status,
    code: expected.code,
    reason: expected.reason,
  });
  const challenge = e.headers['www-authenticate'];
  if (expected.code === undefined) {
    expect(challenge).toMatch(/^Bearer(?: realm="[^"]*")?(?:,? resource_metadata="[^"]*")?$/);
    expect(challenge).not.toContain('error=');
  } else {
    const pattern = `^Bearer (?:realm="[^"]*", )?error="${expected.code}", error_description="[^"]+"`;
    expect(challenge).toMatch(new RegExp(pattern));
  }
  return e;
}

/** Await `promise`, which must reject with the expected AuthError; returns the error. */
export async function expectAuthError(
  promise: Promise<unknown>,
  expected: ExpectedError,
): Promise<AuthError> {
  let settled: { ok: true } | { ok: false; error: unknown };
  try {
    await promise;
    settled = { ok: true };
  } catch (error) {
    settled = { ok: false, error };
  }
  if (settled.ok) assert.fail(`expected a rejection with reason "${expected.reason}", but it resolved`);
  return expectError(settled.error, expected);
}
