/**
 * The step-up rows of the conformance table (RFC 9470; security catalogue section E, cases 9 and 15):
 * `GET /step-up` requires `read:users` and {@link STEP_UP} — a second factor (`acr`) within 30 minutes
 * (`auth_time`) — and every adapter must refuse a weaker or older sign-in with the same 401
 * `insufficient_user_authentication`, whose challenge names `acr_values` and `max_age`.
 *
 * @module
 */
import { createDpopProof, type DpopKey, type TestIssuer } from '@gatehouse/testing';
import { ACR, SCOPES, STEP_UP } from './app.js';
import { bearer, type Expectation, INJECTION, insufficient, type Row, SUBJECT, user } from './case-table.js';
import type { ProofContext } from './client.js';
import type { AnyVariant, Fixtures } from './sender-fixtures.js';

/** Tokens with the claims of a sign-in (`acr`, `auth_time`), minted once per run. */
export interface StepUpTokens {
  /** Both scopes, `acr` = mfa, signed in a minute ago. */
  readonly mfaRecent: string;
  /** Both scopes, `acr` = password, signed in a minute ago. */
  readonly passwordRecent: string;
  /** Both scopes, signed in a minute ago, no `acr`. */
  readonly noAcr: string;
  /** Both scopes, `acr` = mfa, signed in an hour ago. */
  readonly mfaOld: string;
  /** Both scopes, `acr` = mfa, no `auth_time`. */
  readonly mfaNoAuthTime: string;
  /** `write:users` only (not the route's scope), `acr` = mfa, recent. */
  readonly mfaWrongScope: string;
  /** `write:users` only, `acr` = password: both requirements fail. */
  readonly passwordWrongScope: string;
  /** Both scopes, recent, `acr` carrying {@link INJECTION}. */
  readonly injectedAcr: string;
  /** Both scopes, `acr` = password, recent, bound to the DPoP key given to {@link mintStepUpTokens}. */
  readonly boundPassword: string;
}

/** Everything the rows read. */
export type StepUpFixtures = Fixtures & StepUpTokens;

/** Mint the {@link StepUpTokens}; `dpop` is the key the bound one names (the fixtures' `keys.main`). */
export async function mintStepUpTokens(issuer: TestIssuer, dpop: DpopKey): Promise<StepUpTokens> {
  const now = Math.floor(Date.now() / 1000);
  const pair = SCOPES.pair.join(' ');
  const sign = (claims: Record<string, unknown>) =>
    issuer.sign({ sub: SUBJECT, scope: pair, auth_time: now - 60, ...claims });
  return {
    mfaRecent: await sign({ acr: ACR.mfa }),
    passwordRecent: await sign({ acr: ACR.password }),
    noAcr: await sign({}),
    mfaOld: await sign({ acr: ACR.mfa, auth_time: now - 3600 }),
    mfaNoAuthTime: await sign({ acr: ACR.mfa, auth_time: undefined }),
    mfaWrongScope: await sign({ acr: ACR.mfa, scope: 'write:users' }),
    passwordWrongScope: await sign({ acr: ACR.password, scope: 'write:users' }),
    injectedAcr: await sign({ acr: INJECTION }),
    boundPassword: await issuer.sign(
      { sub: SUBJECT, scope: pair, auth_time: now - 60, acr: ACR.password },
      { dpop },
    ),
  };
}

/** 401 `insufficient_user_authentication` naming {@link STEP_UP} in the challenge. */
const stepUp = (reason: 'acr_not_accepted' | 'auth_time_too_old'): Expectation => ({
  status: 401,
  error: 'insufficient_user_authentication',
  reason,
  acrValues: STEP_UP.acrValues.join(' '),
  maxAge: String(STEP_UP.maxAge),
});

const PAIR = [...SCOPES.pair];
const get = (token: string) => ({ path: '/step-up', headers: bearer(token) });

/** The rows. */
export const STEP_UP_ROWS: readonly Row<AnyVariant, StepUpFixtures>[] = [
  {
    name: 'step-up route: second factor, recent sign-in',
    catalogue: [],
    variant: 'default',
    request: (t) => get(t.mfaRecent),
    expect: user(PAIR),
  },
  {
    name: 'step-up route: password only',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.passwordRecent),
    expect: stepUp('acr_not_accepted'),
  },
  {
    name: 'step-up route: no acr',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.noAcr),
    expect: stepUp('acr_not_accepted'),
  },
  {
    name: 'step-up route: second factor an hour ago',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.mfaOld),
    expect: stepUp('auth_time_too_old'),
  },
  {
    name: 'step-up route: no auth_time',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.mfaNoAuthTime),
    expect: stepUp('auth_time_too_old'),
  },
  {
    name: 'step-up route: strong sign-in, scope missing → 403',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.mfaWrongScope),
    expect: insufficient(SCOPES.one),
  },
  {
    name: 'step-up route: weak sign-in and scope missing → the 401 first',
    catalogue: ['E9'],
    variant: 'default',
    request: (t) => get(t.passwordWrongScope),
    expect: stepUp('acr_not_accepted'),
  },
  {
    name: 'step-up route: acr carrying CRLF and quotes never reaches the challenge',
    catalogue: ['E9', 'E15'],
    variant: 'default',
    request: (t) => get(t.injectedAcr),
    expect: stepUp('acr_not_accepted'),
  },
  {
    name: 'step-up route: the challenge names the RFC 9728 document',
    catalogue: ['E9'],
    variant: 'metadata',
    request: (t) => get(t.passwordRecent),
    expect: stepUp('acr_not_accepted'),
  },
  {
    name: 'step-up route: DPoP-bound token, password only → in the DPoP challenge',
    catalogue: ['E9', 'E15'],
    variant: 'default',
    request: (t) => ({
      path: '/step-up',
      headers: { authorization: `DPoP ${t.boundPassword}` },
      dpop: (ctx: ProofContext) =>
        createDpopProof({
          key: t.keys.main,
          method: 'GET',
          url: ctx.url,
          accessToken: t.boundPassword,
          nonce: ctx.nonce,
        }),
    }),
    expect: { ...stepUp('acr_not_accepted'), scheme: 'dpop' } as Expectation,
  },
];
