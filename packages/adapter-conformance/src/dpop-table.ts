/**
 * What the sender-constrained rows (dpop-cases.ts and the files of its sections) are written with: the
 * row type, a valid DPoP proof made at send time for the URL the client really uses and the current
 * nonce, with the overrides a row is about (`withProof`), the expectations of proof and nonce errors,
 * forwarded headers, and a tampered signature.
 *
 * @module
 */
import type { AuthErrorReason } from '@gatehouse/core';
import { createDpopProof, type DpopProofOptions } from '@gatehouse/testing';
import { type Expectation, type Row, user } from './case-table.js';
import type { ProofContext, TestRequest } from './client.js';
import type { AnyVariant, Fixtures } from './sender-fixtures.js';

/** A row of the sender-constrained table. */
export type DpopRow = Row<AnyVariant, Fixtures>;

/** What a row changes in the valid proof: any `createDpopProof` option, fixed or per send. */
export type ProofOverrides = Partial<DpopProofOptions>;
export type Overrides = ProofOverrides | ((ctx: ProofContext) => ProofOverrides);

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A `DPoP` header function: a valid proof for `token`, then the overrides. */
export const proofFor =
  (t: Fixtures, token: string, overrides: Overrides = {}) =>
  (ctx: ProofContext): string =>
    createDpopProof({
      key: t.keys.main,
      method: 'GET',
      url: ctx.url,
      accessToken: token,
      nonce: ctx.nonce,
      ...(typeof overrides === 'function' ? overrides(ctx) : overrides),
    });

/** `Authorization: DPoP <token>` on `/me` (or `req.path`) with the proof {@link proofFor} makes. */
export function withProof(
  t: Fixtures,
  token: string,
  overrides: Overrides = {},
  req: Partial<TestRequest> = {},
) {
  return {
    path: '/me',
    ...req,
    headers: { authorization: `DPoP ${token}`, ...req.headers },
    dpop: proofFor(t, token, overrides),
  } satisfies TestRequest;
}

/** The request URL with another part (`{ host: 'localhost' }`, `{ pathname: '/other' }`, …). */
export const urlWith = (url: string, part: Partial<Pick<URL, 'protocol' | 'host' | 'port' | 'pathname'>>) =>
  Object.assign(new URL(url), part).href;

export const dpopUser = (scopes: readonly string[], actor: string | null = null) =>
  user(scopes, actor, 'dpop');
export const proofError = (reason: Extract<AuthErrorReason, `dpop_${string}`>) =>
  ({ status: 401, error: 'invalid_dpop_proof', reason }) as const;
export const USE_NONCE = { status: 401, error: 'use_dpop_nonce', reason: 'dpop_nonce' } as const;
/** The same error, for a request that used the `DPoP` scheme: in the `DPoP` challenge. */
export const inDpop = (expectation: Expectation): Expectation =>
  ({ ...expectation, scheme: 'dpop' }) as Expectation;

export const FORWARDED = { 'x-forwarded-host': 'evil.test', 'x-forwarded-proto': 'https' };
/** Two hops: what a client sent, then what an appending proxy added. */
export const FORWARDED_CHAIN = {
  'x-forwarded-host': 'evil.test, api.real',
  'x-forwarded-proto': 'https, http',
};

/** The proof with one bit of its signature's first byte flipped (canonical base64url kept). */
export function tamper(proof: string): string {
  const dot = proof.lastIndexOf('.');
  const signature = Buffer.from(proof.slice(dot + 1), 'base64url');
  signature[0]! ^= 0x01;
  return `${proof.slice(0, dot + 1)}${signature.toString('base64url')}`;
}
