import { describe, expect, it } from 'vitest';
import { TokenExchangeError } from '../../src/errors.js';
import { checkParameters, type ExchangeParams, required } from '../../src/grants/exchange-parameters.js';
import { TOKEN_TYPES } from '../../src/grants/token-types.js';

const subject = { subject_token: 'sub_x', subject_token_type: TOKEN_TYPES.accessToken };

function reasonOf(params: ExchangeParams): string | undefined {
  try {
    checkParameters(params);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(TokenExchangeError);
    expect((err as TokenExchangeError).error).toBe('invalid_request');
    return (err as TokenExchangeError).reason;
  }
}

describe('checkParameters', () => {
  it('accepts a subject token or a personal access token, and names its type', () => {
    expect(checkParameters(subject)).toEqual({ subjectType: TOKEN_TYPES.accessToken });
    expect(
      checkParameters({ subject_token: 'gpat_x', subject_token_type: TOKEN_TYPES.personalAccessToken }),
    ).toEqual({ subjectType: TOKEN_TYPES.personalAccessToken });
    expect(
      checkParameters({
        ...subject,
        actor_token: 'a.b.c',
        actor_token_type: TOKEN_TYPES.accessToken,
        requested_token_type: TOKEN_TYPES.accessToken,
      }),
    ).toEqual({ subjectType: TOKEN_TYPES.accessToken });
  });

  it.each<[string, ExchangeParams, string]>([
    ['no subject_token', { subject_token_type: TOKEN_TYPES.accessToken }, 'missing_parameter'],
    ['an empty subject_token', { ...subject, subject_token: '' }, 'missing_parameter'],
    ['no subject_token_type', { subject_token: 'sub_x' }, 'missing_parameter'],
    ['an unknown subject_token_type', { ...subject, subject_token_type: 'urn:x' }, 'unsupported_token_type'],
    ['an actor_token alone', { ...subject, actor_token: 'a.b.c' }, 'missing_parameter'],
    [
      'an actor_token_type alone',
      { ...subject, actor_token_type: TOKEN_TYPES.accessToken },
      'missing_parameter',
    ],
    [
      'an actor_token of another type',
      { ...subject, actor_token: 'a.b.c', actor_token_type: TOKEN_TYPES.personalAccessToken },
      'unsupported_token_type',
    ],
    [
      'an actor_token with a personal access token',
      {
        subject_token: 'gpat_x',
        subject_token_type: TOKEN_TYPES.personalAccessToken,
        actor_token: 'a.b.c',
        actor_token_type: TOKEN_TYPES.accessToken,
      },
      'actor_not_allowed',
    ],
    ['audience', { ...subject, audience: 'https://orders.example.com' }, 'unsupported_parameter'],
    ['another requested_token_type', { ...subject, requested_token_type: 'urn:x' }, 'unsupported_token_type'],
  ])('refuses %s', (_, params, reason) => {
    expect(reasonOf(params)).toBe(reason);
  });
});

describe('required', () => {
  it('returns a present value and refuses a missing or empty one, naming it', () => {
    expect(required({ resource: 'https://orders.example.com' }, 'resource')).toBe(
      'https://orders.example.com',
    );
    expect(() => required({}, 'resource')).toThrow(
      expect.objectContaining({
        reason: 'missing_parameter',
        error_description: "missing required parameter 'resource'",
      }),
    );
    expect(() => required({ resource: '' }, 'resource')).toThrow(TokenExchangeError);
  });
});
