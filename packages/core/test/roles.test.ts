import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createVerifier,
  hasRoles,
  InsufficientRoleError,
  InvalidTokenError,
  MAX_TOKEN_ROLES,
  parseRoles,
  resolveRoleRequirement,
  toRoleList,
} from '../src/index.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

describe('parseRoles', () => {
  it('reads an array of role names, and [] when there is no claim', () => {
    expect(parseRoles({ roles: ['admin', 'order desk'] })).toEqual(['admin', 'order desk']);
    expect(Object.isFrozen(parseRoles({ roles: ['admin'] }))).toBe(true);
    expect(parseRoles({})).toEqual([]);
    expect(parseRoles({ roles: [] })).toEqual([]);
  });
  // Catalogue A61: any other shape is an invalid claim, not "no roles".
  it.each([
    ['a string', 'admin'],
    ['a number', 7],
    ['null', null],
    ['an object', { admin: true }],
    ['an array holding a non-string', ['admin', 1]],
    ['an array holding an empty name', ['admin', '']],
    ['an array holding null', [null]],
    ['too many roles', Array.from({ length: MAX_TOKEN_ROLES + 1 }, (_, i) => `r${i}`)],
  ])('A61: refuses %s', (_label, roles) => {
    expect(parseRoles({ roles })).toBeNull();
  });
});

describe('hasRoles', () => {
  // Catalogue A62: whole, case-sensitive names.
  it.each([
    [['Admin'], ['admin']],
    [['admin2'], ['admin']],
    [['adm'], ['admin']],
    [['admin auditor'], ['admin']],
  ])('A62: %j does not satisfy %j', (granted, required) => {
    expect(hasRoles(granted, required)).toBe(false);
  });
  it('all vs any', () => {
    expect(hasRoles(['a'], ['a', 'b'], 'all')).toBe(false);
    expect(hasRoles(['a'], ['a', 'b'], 'any')).toBe(true);
    expect(hasRoles(['b', 'a'], ['a', 'b'])).toBe(true);
  });
});

describe('toRoleList and resolveRoleRequirement', () => {
  it('takes one role name (spaces allowed) or a list', () => {
    expect(toRoleList('order desk')).toEqual(['order desk']);
    expect(toRoleList(['admin', 'auditor'])).toEqual(['admin', 'auditor']);
    const once = toRoleList(['admin']);
    expect(toRoleList(once)).toBe(once);
  });
  it('refuses a requirement that names no role, or not a role', () => {
    expect(() => toRoleList('')).toThrow(/role name/);
    expect(() => toRoleList([])).toThrow(/at least one role/);
    expect(() => toRoleList([7] as never)).toThrow(TypeError);
    expect(() => toRoleList(undefined as never)).toThrow(TypeError);
  });
  it('resolves the options, refusing unknown keys and modes', () => {
    expect(resolveRoleRequirement('admin')).toEqual({
      roles: ['admin'],
      roleMode: 'all',
      allowDelegation: true,
    });
    expect(resolveRoleRequirement(['a', 'b'], { mode: 'any', allowDelegation: false })).toEqual({
      roles: ['a', 'b'],
      roleMode: 'any',
      allowDelegation: false,
    });
    expect(() => resolveRoleRequirement('a', { mode: 'some' as never })).toThrow(/"mode"/);
    expect(() => resolveRoleRequirement('a', { mdoe: 'any' } as never)).toThrow(/mode/);
    expect(() => resolveRoleRequirement('a', null as never)).toThrow(/must be an object/);
  });
});

describe('roles through the verifier', () => {
  let server: JwksServer;
  const key = makeKey('ES256');
  beforeAll(async () => {
    server = await startJwksServer(jwksOf(key));
  });
  afterAll(() => server.close());
  const verifier = () => createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri });

  it('exposes the roles on AuthInfo, with hasRole / hasAnyRole', async () => {
    const auth = await verifier().verify(signToken(key, claims({ roles: ['admin', 'auditor'] })));
    expect(auth.roles).toEqual(['admin', 'auditor']);
    expect(auth.hasRole('admin', 'auditor')).toBe(true);
    expect(auth.hasRole('admin', 'owner')).toBe(false);
    expect(auth.hasAnyRole('owner', 'auditor')).toBe(true);
    expect(JSON.parse(JSON.stringify(auth)).roles).toEqual(['admin', 'auditor']);
    expect((await verifier().verify(signToken(key, claims()))).roles).toEqual([]);
  });

  it('A61: a roles claim that is not an array of names makes the token invalid (401, claim named)', async () => {
    const error = await verifier()
      .verify(signToken(key, claims({ roles: 'admin' })))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_token', reason: 'claim', claim: 'roles' });
  });

  it('A62: a missing role is 403 insufficient_scope, reason insufficient_role, naming no role', async () => {
    const v = verifier();
    const token = signToken(key, claims({ roles: ['auditor'] }));
    await expect(v.verify(token, { roles: 'auditor' })).resolves.toBeDefined();
    await expect(v.verify(token, { roles: ['admin', 'auditor'], roleMode: 'any' })).resolves.toBeDefined();
    const error = (await v
      .verify(token, { roles: ['admin', 'auditor'] })
      .catch((e: unknown) => e)) as InsufficientRoleError;
    expect(error).toBeInstanceOf(InsufficientRoleError);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope', reason: 'insufficient_role' });
    expect(error.requiredRoles).toEqual(['admin', 'auditor']);
    expect(error.mode).toBe('all');
    const challenge = error.headers['www-authenticate'];
    expect(challenge).toMatch(
      /^Bearer realm="api", error="insufficient_scope", error_description="The access token does not carry the required role", DPoP /,
    );
    expect(challenge).not.toMatch(/scope="|admin|auditor/);
    expect(JSON.stringify(error.toJSON())).not.toContain('admin');
  });

  it('A62: a token without any roles claim never satisfies a role requirement', async () => {
    const token = signToken(key, claims({ scope: 'admin' }));
    await expect(verifier().verify(token, { roles: 'admin' })).rejects.toBeInstanceOf(InsufficientRoleError);
  });
});
