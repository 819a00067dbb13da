/**
 * Per-call options refuse unknown keys like every other options object (issue: `verify(token, { scope:
 * 'admin:all' })`, a typo of `scopes`, verified *without* the scope requirement). `verify()`,
 * `authenticate()`, `authenticateNow()` and `authorize()` throw a `TypeError` naming the key and the
 * closest known one; options prepared once with `callOptions()` (and the requirements adapters build)
 * are checked when made and not again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callOptions,
  createVerifier,
  InsufficientScopeError,
  resolveRoleRequirement,
  resolveScopeRequirement,
} from '../src/index.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const key = makeKey('ES256');
let server: JwksServer;

beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
});
afterAll(() => server.close());

const verifier = () => createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri });
const token = () => signToken(key, claims({ scope: 'read:orders' }));
const request = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });

describe('per-call options', () => {
  it('verify() refuses a misspelt key instead of dropping the requirement', async () => {
    const v = verifier();
    await expect(v.verify(await token(), { scope: 'admin:all' } as never)).rejects.toThrow(
      new TypeError('verify: unknown option "scope" (did you mean "scopes"?)'),
    );
    // Spelt right, the requirement holds.
    await expect(v.verify(await token(), { scopes: 'admin:all' })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
    await expect(v.verify(await token(), { scopes: 'read:orders' })).resolves.toMatchObject({
      scopes: ['read:orders'],
    });
  });

  it('verify() takes only VerifyOptions: authenticate-only keys are unknown there', async () => {
    await expect(verifier().verify(await token(), { optional: true } as never)).rejects.toThrow(
      /verify: unknown option "optional"/,
    );
  });

  it('authenticate(), authenticateNow() and authorize() refuse unknown keys too', async () => {
    const v = verifier();
    const jwt = await token();
    await expect(v.authenticate(request(jwt), { optinal: true } as never)).rejects.toThrow(
      'authenticate: unknown option "optinal" (did you mean "optional"?)',
    );
    expect(() => v.authenticateNow(request(jwt), { scopeMod: 'any' } as never)).toThrow(
      'authenticate: unknown option "scopeMod" (did you mean "scopeMode"?)',
    );
    const info = await v.verify(jwt);
    expect(() => v.authorize(info, { role: 'admin' } as never)).toThrow(
      'authorize: unknown option "role" (did you mean "roles"?)',
    );
    expect(() => v.authorize(info, { colour: 'red' } as never)).toThrow(
      /^authorize: unknown option "colour"$/,
    );
    expect(() => v.authorize(info, null as never)).toThrow('authorize: options must be an object');
  });

  it('callOptions() checks once, freezes, and the verifier honours what it made', async () => {
    expect(() => callOptions({ scope: 'x' } as never)).toThrow(/callOptions: unknown option "scope"/);
    const adminOnly = callOptions({ scopes: ['admin:all'], optional: false });
    expect(Object.isFrozen(adminOnly)).toBe(true);
    expect(Object.keys(adminOnly)).toEqual(['scopes', 'optional']);
    expect(JSON.stringify(adminOnly)).toBe('{"scopes":["admin:all"],"optional":false}');
    expect(callOptions(adminOnly)).toBe(adminOnly);
    const v = verifier();
    await expect(v.authenticate(request(await token()), adminOnly)).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
  });

  it('the requirements adapters build are checked options', async () => {
    const scope = resolveScopeRequirement('read:orders');
    const role = resolveRoleRequirement('admin');
    expect(callOptions(scope)).toBe(scope);
    expect(callOptions(role)).toBe(role);
    const v = verifier();
    const info = await v.verify(await token(), scope);
    expect(() => v.authorize(info, role)).toThrow(/role/);
  });
});
