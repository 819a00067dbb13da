/**
 * The console page's own logic, run in Node: which areas a session may read or change (from its
 * scopes), who counts as an administrator, scopes read from an access token, and API refusals turned
 * into sentences (the fields the API names, the scope ceiling's reasons, conflicts — never JSON or a
 * schema's wording), and custom data typed as a JSON object.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../src/json-object.js';
import { describeFailure } from '../src/messages.js';
import { can, isAdministrator, tokenScopes } from '../src/scopes.js';

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
    ).toBe('Redirect URI 1 must be an absolute URI without a fragment.');
    expect(describeFailure(409, { code: 'conflict', message: 'An application cannot delete itself' })).toBe(
      'An application cannot delete itself.',
    );
    expect(describeFailure(502, undefined)).toBe('The issuer answered 502.');
    expect(describeFailure(404, undefined)).toBe('It no longer exists.');
    expect(describeFailure(404, { code: 'not_found', message: 'User not found' })).toBe('User not found.');
  });

  it('#29 item 8: says "already taken" conflicts as what exists already', () => {
    expect(describeFailure(409, { code: 'conflict', message: 'resource.indicator is already taken' })).toBe(
      'An API resource with this indicator exists already.',
    );
    expect(describeFailure(409, { code: 'conflict', message: 'user.username is already taken' })).toBe(
      'A user with this username exists already.',
    );
    expect(describeFailure(409, { code: 'conflict', message: 'widget.colour is already taken' })).toBe(
      'This colour is in use already.',
    );
  });

  it('#29 item 8: says the schema’s field problems as sentences, one per field', () => {
    const refused = (...issues: [string, string][]) =>
      describeFailure(400, {
        code: 'invalid_request',
        message: 'Invalid body',
        issues: issues.map(([path, message]) => ({ path, message })),
      });
    expect(refused(['body.password', 'Too small: expected string to have >=8 characters'])).toBe(
      'The password must be at least 8 characters long.',
    );
    expect(
      refused(
        ['body.username', 'Invalid input: expected string, received undefined'],
        ['body.email', 'Invalid email address'],
        ['body.accessTokenTtl', 'Too small: expected number to be >=60'],
        ['body.type', 'Invalid option: expected one of "User"|"MachineToMachine"'],
        ['body.roleIds', 'Too small: expected array to have >=1 items'],
        ['body', 'unknown field: "colour"'],
      ),
    ).toBe(
      [
        'The username is required.',
        'The email address is not valid.',
        'The access token lifetime must be at least 60.',
        'The type must be one of User, MachineToMachine.',
        'The roles must have at least 1 entry.',
        'The request has an unknown field: "colour".',
      ].join(' '),
    );
    expect(refused(['body.customData', 'customData must serialize to at most 4096 bytes'])).toBe(
      'The custom data must serialize to at most 4096 bytes.',
    );
  });

  it('F3: says a refusal of the scope ceiling as its message, with what to do', () => {
    expect(
      describeFailure(403, {
        code: 'access_denied',
        reason: 'role_exceeds_caller',
        message: 'A role grants scopes you do not hold: all',
      }),
    ).toBe(
      'A role grants scopes you do not hold: all. You can only grant roles whose scopes you hold yourself.',
    );
    expect(
      describeFailure(403, {
        code: 'access_denied',
        reason: 'built_in',
        message: 'The role Gatehouse console viewer is built in: only a caller holding all may change it',
      }),
    ).toBe('The role Gatehouse console viewer is built in: only a caller holding all may change it.');
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
