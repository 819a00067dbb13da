/**
 * What the page says when sign-in or a token request fails (public/messages.js): OAuth codes and the
 * client's reasons as sentences, with the issuer's description; and the scope check that decides who
 * sees the impersonation form.
 */
import { OAuthResponseError } from '@gatehouse/client';
import { describe, expect, it } from 'vitest';
import { describeError, hasScope } from '../public/messages.js';

describe('describeError', () => {
  it('says a cancelled sign-in was cancelled', () => {
    const cancelled = new OAuthResponseError('authorization', 'access_denied', {
      errorDescription: 'The user cancelled the request',
    });
    expect(describeError(cancelled)).toBe('The sign-in was cancelled.');
  });

  it.each([
    [{ reason: 'oauth_error', error: 'access_denied' }, 'The sign-in was not allowed.'],
    [
      { reason: 'oauth_error', error: 'access_denied', errorDescription: 'user is suspended' },
      'The sign-in was not allowed. User is suspended.',
    ],
    [{ reason: 'oauth_error', error: 'login_required' }, 'You need to sign in again.'],
    [
      { reason: 'oauth_error', error: 'invalid_grant', errorDescription: 'grant request is invalid' },
      'Your session has ended: sign in again. Grant request is invalid.',
    ],
    [{ reason: 'oauth_error', error: 'server_error' }, 'The issuer had a problem: try again in a moment.'],
    [
      { reason: 'oauth_error', error: 'temporarily_unavailable' },
      'The issuer is busy: try again in a moment.',
    ],
    [
      { reason: 'network', error: 'temporarily_unavailable' },
      'The issuer cannot be reached: check that it is running, then try again.',
    ],
    [{ reason: 'network' }, 'The issuer cannot be reached: check that it is running, then try again.'],
    [
      { reason: 'state_mismatch', error: 'invalid_request' },
      'This sign-in link is stale or was opened twice: sign in again.',
    ],
    [{ reason: 'oauth_error', error: 'invalid_request' }, 'The issuer refused the request.'],
    [{ reason: 'no_pending_sign_in' }, 'This sign-in link is stale or was opened twice: sign in again.'],
    [
      { reason: 'oauth_error', error: 'made_up', errorDescription: 'something odd' },
      'Sign-in failed: Something odd.',
    ],
    [new TypeError('Failed to fetch'), 'Sign-in failed: Failed to fetch.'],
  ])('%o → %s', (err, text) => {
    expect(describeError(err)).toBe(text);
  });

  it('never shows a bare OAuth code', () => {
    for (const error of ['access_denied', 'login_required', 'invalid_scope', 'invalid_target']) {
      expect(describeError({ reason: 'oauth_error', error })).not.toContain(error);
    }
  });
});

describe('hasScope', () => {
  it('reads the space-separated scope claim', () => {
    expect(hasScope({ scope: 'read:orders impersonate:users' }, 'impersonate:users')).toBe(true);
    expect(hasScope({ scope: 'read:orders' }, 'impersonate:users')).toBe(false);
    expect(hasScope({ scope: 'impersonate:users:all' }, 'impersonate:users')).toBe(false);
    expect(hasScope({}, 'impersonate:users')).toBe(false);
    expect(hasScope(undefined as never, 'impersonate:users')).toBe(false);
  });
});
