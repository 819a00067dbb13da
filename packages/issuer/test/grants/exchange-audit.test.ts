import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { TokenExchangeError, TooManyExchangeFailuresError } from '../../src/errors.js';
import { type ExchangeAttempt, failureEvent, GRANT_NOT_ALLOWED } from '../../src/grants/exchange-audit.js';

const ctx = (clientId?: string) =>
  ({ oidc: { client: clientId === undefined ? undefined : { clientId } } }) as unknown as KoaContextWithOIDC;

describe('failureEvent', () => {
  it('records who tried, the details known and the description', () => {
    const attempt: ExchangeAttempt = {
      userId: 'usr_1',
      actorId: 'usr_2',
      details: { resource: 'https://a.example' },
    };
    expect(
      failureEvent(ctx('te-web'), attempt, new TokenExchangeError('user_suspended', 'the user is suspended')),
    ).toEqual({
      type: 'token_exchange.failed',
      applicationId: 'te-web',
      userId: 'usr_1',
      actorId: 'usr_2',
      reason: 'user_suspended',
      details: { resource: 'https://a.example', description: 'the user is suspended' },
    });
  });

  it.each<[string, unknown, string]>([
    ['a token exchange reason', new TokenExchangeError('actor_mismatch', 'x'), 'actor_mismatch'],
    ['the failure limit', new TooManyExchangeFailuresError(30), 'rate_limited'],
    [
      'a custom claims failure',
      Object.assign(new Error('boom'), { failure: 'threw' }),
      'custom_claims_failed',
    ],
    ['a custom claims denial', new errors.AccessDenied('no'), 'custom_claims_denied'],
    ['a grant the client may not use', new errors.InvalidRequest(GRANT_NOT_ALLOWED), 'unauthorized_client'],
    [
      'another OAuth error',
      new errors.InvalidTarget('resource indicator is not registered'),
      'invalid_target',
    ],
    ['anything else', new Error('boom'), 'server_error'],
  ])('gives %s its reason', (_, err, reason) => {
    const event = failureEvent(ctx(), { userId: null, actorId: null, details: {} }, err);
    expect(event.reason).toBe(reason);
    expect(event.applicationId).toBeNull();
  });

  it('cuts a long description to 256 characters', () => {
    const event = failureEvent(
      ctx('te-web'),
      { userId: null, actorId: null, details: {} },
      new errors.InvalidRequest('x'.repeat(400)),
    );
    expect(event.details.description).toBe('x'.repeat(256));
  });
});
