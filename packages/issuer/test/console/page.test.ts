/**
 * The console page's own logic, run in Node: which areas a session may read or change (from its
 * scopes), who counts as an administrator, scopes read from an access token, and API refusals turned
 * into sentences (with the fields the API names, never JSON), and custom data typed as a JSON object.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../../console/src/json-object.js';
import { describeFailure } from '../../console/src/messages.js';
import { can, isAdministrator, tokenScopes } from '../../console/src/scopes.js';

const session = (...scopes: string[]) => ({ scopes: new Set(scopes) });
const jwt = (payload: unknown) =>
  ['{"alg":"RS256"}', JSON.stringify(payload), 'sig']
    .map((part) => Buffer.from(part).toString('base64url'))
    .join('.');

describe('console page logic', () => {
  it('reads and writes per area: all, area:write (reads too), area:read', () => {
    expect(can(session('all'), 'keys', true)).toBe(true);
    expect(can(session('users:write'), 'users')).toBe(true);
    expect(can(session('users:write'), 'users', true)).toBe(true);
    expect(can(session('users:read'), 'users', true)).toBe(false);
    expect(can(session('users:read'), 'applications')).toBe(false);
  });

  it('an administrator holds at least one Management API scope', () => {
    expect(isAdministrator(new Set(['audit:read']))).toBe(true);
    expect(isAdministrator(new Set(['read:orders', 'openid']))).toBe(false);
    expect(isAdministrator(new Set())).toBe(false);
  });

  it('reads the scope claim of an access token', () => {
    expect([...tokenScopes(jwt({ scope: 'users:read  audit:read' }))]).toEqual(['users:read', 'audit:read']);
    expect([...tokenScopes(jwt({ sub: 'usr_1' }))]).toEqual([]);
  });

  it('turns refusals into sentences', () => {
    expect(describeFailure(403, { code: 'insufficient_scope', message: 'Insufficient scope' })).toBe(
      'You are not allowed to do this: your roles do not grant the permission it needs.',
    );
    expect(
      describeFailure(400, {
        code: 'invalid_request',
        message: 'Invalid body',
        issues: [{ path: 'body.redirectUris.0', message: 'must be an absolute URI without a fragment' }],
      }),
    ).toBe('Invalid body: redirectUris.0 must be an absolute URI without a fragment.');
    expect(describeFailure(409, { code: 'conflict', message: 'name is already taken' })).toBe(
      'name is already taken',
    );
    expect(describeFailure(502, undefined)).toBe('The issuer answered 502.');
    expect(describeFailure(404, undefined)).toBe('It no longer exists.');
  });

  it('reads custom data as a JSON object, and refuses anything else with a sentence', () => {
    expect(parseJsonObject('{"plan": "pro", "seats": 3}')).toEqual({ value: { plan: 'pro', seats: 3 } });
    expect(parseJsonObject('  ')).toEqual({ value: {} });
    expect(parseJsonObject('{"plan": ')).toEqual({ error: 'Custom data is not valid JSON.' });
    for (const text of ['["pro"]', 'null', '"pro"', '3'])
      expect(parseJsonObject(text), text).toEqual({
        error: 'Custom data must be a JSON object, e.g. {"plan": "pro"}.',
      });
  });
});
