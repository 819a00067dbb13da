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
  /** The challenge carrying the error. Default: `DPoP` for DPoP error codes, else `Bearer`. */
  readonly scheme?: 'Bearer' | 'DPoP';
}

/** One challenge of a `WWW-Authenticate` value. */
export interface ParsedChallenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** Split a `WWW-Authenticate` value into its challenges (auth-params as quoted strings only). */
export function parseChallenges(value: string | undefined): ParsedChallenge[] {
  const out: { scheme: string; params: Record<string, string> }[] = [];
  if (value === undefined) return out;
  const token = /\s*(?:,\s*)?([A-Za-z][A-Za-z0-9_-]*)(?:\s*=\s*"([^"\\]*)"|(?=\s*,|\s*$|\s+[A-Za-z]))/y;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = token.exec(value)) !== null) {
    last = token.lastIndex;
    if (m[2] === undefined) out.push({ scheme: m[1]!, params: {} });
    else {
      const current = out[out.length - 1];
      if (current === undefined) throw new Error(`auth-param before any scheme in ${value}`);
      if (m[1]! in current.params) throw new Error(`duplicate ${m[1]} in ${value}`);
      current.params[m[1]!] = m[2];
    }
    if (last >= value.length) break;
  }
  if (last !== value.length) throw new Error(`unparsable WWW-Authenticate: ${value}`);
  return out;
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
  const challenges = parseChallenges(e.headers['www-authenticate']);
  expect(challenges.length, 'challenges').toBeGreaterThan(0);
  if (expected.code === undefined) {
    for (const c of challenges) expect(c.params.error, `${c.scheme} challenge error`).toBeUndefined();
  } else {
    const dpopCode = expected.code === 'invalid_dpop_proof' || expected.code === 'use_dpop_nonce';
    const scheme = expected.scheme ?? (dpopCode ? 'DPoP' : 'Bearer');
    const withError = challenges.filter((c) => c.params.error !== undefined);
    expect(withError.map((c) => [c.scheme, c.params.error])).toEqual([[scheme, expected.code]]);
    expect(withError[0]!.params.error_description).toBe(e.description);
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
