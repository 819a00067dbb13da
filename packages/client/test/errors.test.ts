/** The error classes: OAuth `error` codes, reasons, JSON form, and the guard. */
import { describe, expect, it } from 'vitest';
import {
  ClientError,
  isClientError,
  NetworkError,
  NotSignedInError,
  OAuthResponseError,
  ServerResponseError,
  SignInCallbackError,
  UnknownResourceError,
} from '../src/index.js';

describe('errors', () => {
  it.each([
    [
      new OAuthResponseError('token', 'invalid_grant', {
        status: 400,
        errorDescription: 'grant request is invalid',
      }),
      'oauth_error',
      'invalid_grant',
    ],
    [new UnknownResourceError('https://x.example'), 'unknown_resource', 'invalid_target'],
    [new NotSignedInError(), 'not_signed_in', 'login_required'],
    [new SignInCallbackError('state_mismatch'), 'state_mismatch', 'invalid_request'],
    [new SignInCallbackError('no_pending_sign_in'), 'no_pending_sign_in', 'invalid_request'],
    [new SignInCallbackError('invalid_callback'), 'invalid_callback', 'invalid_request'],
    [new ServerResponseError('bad', 502), 'invalid_response', 'server_error'],
    [new NetworkError(new TypeError('fetch failed')), 'network', 'temporarily_unavailable'],
  ])('%o has its reason and OAuth error code', (err, reason, error) => {
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toBeInstanceOf(Error);
    expect(isClientError(err)).toBe(true);
    expect(err.reason).toBe(reason);
    expect(err.error).toBe(error);
    expect(err.name).toBe(err.constructor.name);
    expect(err.toJSON()).toMatchObject({ name: err.name, reason, error });
  });

  it('carries the server’s status and description', () => {
    const err = new OAuthResponseError('token', 'invalid_grant', {
      status: 400,
      errorDescription: 'grant request is invalid',
    });
    expect(err.message).toBe('The token endpoint answered "invalid_grant" (grant request is invalid)');
    expect(err.toJSON()).toEqual({
      name: 'OAuthResponseError',
      reason: 'oauth_error',
      error: 'invalid_grant',
      error_description: 'grant request is invalid',
      status: 400,
    });
    expect(new OAuthResponseError('authorization', 'access_denied').toJSON()).toEqual({
      name: 'OAuthResponseError',
      reason: 'oauth_error',
      error: 'access_denied',
    });
  });

  it('keeps the cause of a network failure', () => {
    const cause = new TypeError('fetch failed');
    expect(new NetworkError(cause).cause).toBe(cause);
  });

  it('names the unknown resource', () => {
    const err = new UnknownResourceError('https://x.example');
    expect(err.resource).toBe('https://x.example');
    expect(err.message).toContain('"https://x.example"');
  });

  it('isClientError rejects other values', () => {
    expect(isClientError(new Error('x'))).toBe(false);
    expect(isClientError(new TypeError('x'))).toBe(false);
    expect(isClientError({ reason: 'network', error: 'x' })).toBe(false);
    expect(isClientError(undefined)).toBe(false);
  });
});
