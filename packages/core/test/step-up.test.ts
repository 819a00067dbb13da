/**
 * RFC 9470 step-up: `acrValues` / `maxAge` per call, per verifier and per `requireScope()`, the 401
 * `insufficient_user_authentication` challenge (E9), and its header safety (E15).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createVerifier,
  InsufficientScopeError,
  InsufficientUserAuthenticationError,
  InvalidTokenError,
  resolveScopeRequirement,
  resolveStepUp,
  resolveStepUpRequirement,
  type VerifierOptions,
} from '../src/index.js';
import { parseChallenges } from './helpers/assertions.js';
import { freezeDate } from './helpers/clock.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const MFA = 'urn:gatehouse:acr:mfa';
const PWD = 'urn:gatehouse:acr:pwd';
const key = makeKey('ES256');
let server: JwksServer;

beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
});

const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri, ...options });
const now = () => Math.floor(Date.now() / 1000);
const token = (extra: Record<string, unknown>) => signToken(key, claims(extra));

async function refusal(promise: Promise<unknown>): Promise<InsufficientUserAuthenticationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InsufficientUserAuthenticationError);
  return error as InsufficientUserAuthenticationError;
}

describe('E9: a route requiring acr_values or max_age', () => {
  it('accepts a token whose acr is accepted and whose auth_time is recent enough', async () => {
    const auth = await make().verify(token({ acr: MFA, auth_time: now() - 10 }), {
      acrValues: [MFA],
      maxAge: 60,
    });
    expect(auth.claims.acr).toBe(MFA);
  });

  it('E9: refuses a weaker acr with 401 insufficient_user_authentication and acr_values in the challenge', async () => {
    const error = await refusal(make().verify(token({ acr: PWD, auth_time: now() }), { acrValues: [MFA] }));
    expect(error.status).toBe(401);
    expect(error.code).toBe('insufficient_user_authentication');
    expect(error.reason).toBe('acr_not_accepted');
    expect(error.toJSON()).toEqual({
      error: 'insufficient_user_authentication',
      error_description: error.description,
    });
    const [bearer, ...rest] = parseChallenges(error.wwwAuthenticate);
    expect(bearer?.params).toEqual({
      realm: 'api',
      error: 'insufficient_user_authentication',
      error_description: error.description,
      acr_values: MFA,
    });
    // The default verifier allows DPoP: a bare DPoP challenge follows.
    expect(rest.map((c) => c.scheme)).toEqual(['DPoP']);
    expect(rest[0]?.params.error).toBeUndefined();
  });

  it('E9: refuses a token without acr', async () => {
    const error = await refusal(make().verify(token({}), { acrValues: `${MFA} ${PWD}` }));
    expect(error.reason).toBe('acr_not_accepted');
    expect(error.acrValues).toEqual([MFA, PWD]);
    expect(parseChallenges(error.wwwAuthenticate)[0]?.params.acr_values).toBe(`${MFA} ${PWD}`);
  });

  it('E9: refuses an auth_time older than max_age (beyond the clock tolerance) with max_age in the challenge', async () => {
    freezeDate(); // exact ages: a loaded machine may take seconds between signing and verifying
    const verifier = make({ clockTolerance: 5 });
    // Up to maxAge + tolerance: accepted; one second more: refused.
    await expect(verifier.verify(token({ auth_time: now() - 65 }), { maxAge: 60 })).resolves.toBeDefined();
    const error = await refusal(verifier.verify(token({ auth_time: now() - 66 }), { maxAge: 60 }));
    expect(error.reason).toBe('auth_time_too_old');
    expect(error.maxAge).toBe(60);
    expect(parseChallenges(error.wwwAuthenticate)[0]?.params).toMatchObject({
      error: 'insufficient_user_authentication',
      max_age: '60',
    });
    expect(parseChallenges(error.wwwAuthenticate)[0]?.params.acr_values).toBeUndefined();
  });

  it('E9: refuses a token without auth_time when max_age is required', async () => {
    const error = await refusal(make().verify(token({ acr: MFA }), { maxAge: 300 }));
    expect(error.reason).toBe('auth_time_too_old');
  });

  it('E9: names both requirements in the challenge when the route has both', async () => {
    const error = await refusal(
      make().verify(token({ acr: MFA, auth_time: now() - 1000 }), { acrValues: [MFA], maxAge: 300 }),
    );
    expect(error.reason).toBe('auth_time_too_old');
    expect(parseChallenges(error.wwwAuthenticate)[0]?.params).toMatchObject({
      acr_values: MFA,
      max_age: '300',
    });
  });

  it('E9: max_age 0 needs a sign-in within the clock tolerance', async () => {
    freezeDate();
    const verifier = make({ clockTolerance: 2 });
    await expect(verifier.verify(token({ auth_time: now() - 2 }), { maxAge: 0 })).resolves.toBeDefined();
    await refusal(verifier.verify(token({ auth_time: now() - 3 }), { maxAge: 0 }));
  });

  it('a malformed acr or auth_time is invalid_token (claim), not a step-up', async () => {
    const verifier = make();
    for (const [extra, claim] of [
      [{ acr: 2 }, 'acr'],
      [{ auth_time: '1700000000' }, 'auth_time'],
      [{ auth_time: now() + 3600 }, 'auth_time'],
    ] as const) {
      const error = await verifier.verify(token(extra), { acrValues: [MFA], maxAge: 60 }).catch((e) => e);
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error).toMatchObject({ reason: 'claim', claim });
    }
  });

  it('checks step-up (401) before scopes (403), after the delegation switch', async () => {
    const verifier = make();
    const weak = token({ acr: PWD, scope: 'read:orders' });
    await refusal(verifier.verify(weak, { scopes: 'admin', acrValues: [MFA] }));
    const strong = token({ acr: MFA, scope: 'read:orders' });
    await expect(verifier.verify(strong, { scopes: 'admin', acrValues: [MFA] })).rejects.toBeInstanceOf(
      InsufficientScopeError,
    );
    const delegated = token({ acr: PWD, act: { sub: 'support-7' } });
    await expect(
      verifier.verify(delegated, { allowDelegation: false, acrValues: [MFA] }),
    ).rejects.toMatchObject({ status: 403, reason: 'delegation_not_allowed' });
  });

  it('F10: a delegated token (act) never meets a step-up requirement, whatever acr and auth_time it carries', async () => {
    const verifier = make();
    const fresh = { acr: MFA, auth_time: now() };
    const delegated = token({ ...fresh, act: { sub: 'support-7' } });
    const options = { allowDelegation: true } as const;
    expect((await refusal(verifier.verify(delegated, { ...options, acrValues: [MFA] }))).reason).toBe(
      'acr_not_accepted',
    );
    expect((await refusal(verifier.verify(delegated, { ...options, maxAge: 600 }))).reason).toBe(
      'auth_time_too_old',
    );
    // The same claims without act pass; a delegated token passes a route without step-up.
    await expect(verifier.verify(token(fresh), { acrValues: [MFA], maxAge: 600 })).resolves.toBeDefined();
    await expect(verifier.verify(delegated, options)).resolves.toBeDefined();
    // Also through authorize() with a requireScope() requirement.
    const auth = await verifier.verify(delegated, options);
    expect(() =>
      verifier.authorize(
        auth,
        resolveScopeRequirement('read:orders', { acrValues: [MFA], allowDelegation: true }),
      ),
    ).toThrow(InsufficientUserAuthenticationError);
  });

  it('verifier-wide acrValues / maxAge apply to every token, also one served from the result cache', async () => {
    const verifier = make({ acrValues: MFA, maxAge: 600 });
    const strong = token({ acr: MFA, auth_time: now() });
    await expect(verifier.verify(strong)).resolves.toBeDefined();
    await expect(verifier.verify(strong)).resolves.toBeDefined();
    const weak = token({ acr: PWD, auth_time: now() });
    expect((await refusal(verifier.verify(weak))).reason).toBe('acr_not_accepted');
    expect((await refusal(verifier.verify(weak))).reason).toBe('acr_not_accepted');
  });

  it('a cached token is checked against each call: the route decides, not the first request', async () => {
    const verifier = make();
    const weak = token({ acr: PWD, auth_time: now() });
    await expect(verifier.verify(weak)).resolves.toBeDefined();
    await refusal(verifier.verify(weak, { acrValues: [MFA] }));
    await expect(verifier.verify(weak, { acrValues: [PWD, MFA] })).resolves.toBeDefined();
  });

  it('requireScope() options carry acrValues and maxAge to authorize()', async () => {
    const verifier = make();
    const requirement = resolveScopeRequirement('read:orders', { acrValues: [MFA], maxAge: 120 });
    expect(requirement).toMatchObject({ acrValues: [MFA], maxAge: 120 });
    const weak = await verifier.verify(token({ acr: PWD, auth_time: now() }));
    expect(() => verifier.authorize(weak, requirement)).toThrow(InsufficientUserAuthenticationError);
    const strong = await verifier.verify(token({ acr: MFA, auth_time: now() }));
    expect(() => verifier.authorize(strong, requirement)).not.toThrow();
  });

  it('the error of a DPoP-bound token goes in the DPoP challenge', () => {
    const verifier = make();
    const info = {
      claims: { acr: PWD },
      confirmation: { jkt: 'x'.repeat(43) },
      delegated: false,
      scopes: [],
    } as never;
    const error = (() => {
      try {
        verifier.authorize(info, { acrValues: [MFA] });
      } catch (e) {
        return e as InsufficientUserAuthenticationError;
      }
    })()!;
    const [bearer, dpop] = parseChallenges(error.wwwAuthenticate);
    expect(bearer?.params.error).toBeUndefined();
    expect(dpop).toMatchObject({
      scheme: 'DPoP',
      params: { error: 'insufficient_user_authentication', acr_values: MFA },
    });
  });
});

describe('E15: the step-up error is header-safe', () => {
  it('E15: an AuthError whose challenge holds no quote, backslash, CR or LF whatever is passed', () => {
    const error = new InsufficientUserAuthenticationError(
      'acr_not_accepted',
      { acrValues: ['a"b\\c\r\nSet-Cookie: x=1'], maxAge: 5 },
      { realm: 'api' },
    );
    const header = error.wwwAuthenticate;
    const inner = header.slice('Bearer '.length).replaceAll(/="[^"]*"/g, '');
    expect(inner).not.toMatch(/["\\\r\n]/);
    expect(header).not.toMatch(/[\r\n\\]/);
    expect(parseChallenges(header)[0]?.params.acr_values).toBe('abcSet-Cookie: x=1');
    expect(error.headers).toEqual({ 'www-authenticate': header });
  });

  it("E15: the token's own acr never reaches the challenge or the description", async () => {
    const evil = 'x"\r\nSet-Cookie: s=1';
    const error = await refusal(make().verify(token({ acr: evil }), { acrValues: [MFA] }));
    expect(error.wwwAuthenticate).not.toContain('Set-Cookie');
    expect(JSON.stringify(error.toJSON())).not.toContain('Set-Cookie');
  });
});

describe('step-up options are validated at construction', () => {
  it.each([
    [{ acrValues: [] }, /acrValues/],
    [{ acrValues: '' }, /acrValues/],
    [{ acrValues: ['has space'] }, /acrValues/],
    [{ acrValues: ['quo"te'] }, /acrValues/],
    [{ acrValues: [7] }, /acrValues/],
    [{ maxAge: -1 }, /maxAge/],
    [{ maxAge: 1.5 }, /maxAge/],
    [{ maxAge: '60' }, /maxAge/],
  ])('refuses %j', (options, message) => {
    expect(() => resolveStepUp(options as never)).toThrow(message);
    expect(() => make(options as never)).toThrow(message);
    expect(() => resolveScopeRequirement('read:orders', options as never)).toThrow(message);
  });

  it('refuses typos with a did-you-mean, in requireScope() options and step-up guards', () => {
    expect(() => resolveScopeRequirement('read:orders', { acrValue: [MFA] } as never)).toThrow(
      /unknown option "acrValue" \(did you mean "acrValues"\?\)/,
    );
    expect(() => resolveStepUpRequirement({ maxAeg: 60 } as never)).toThrow(/did you mean "maxAge"/);
    expect(() => make({ acr_values: MFA } as never)).toThrow(/did you mean "acrValues"/);
    expect(() => resolveStepUpRequirement({})).toThrow(/acrValues.*maxAge/);
  });

  it('a call with invalid step-up options is refused with the TypeError, not an AuthError', async () => {
    await expect(make().verify(token({ acr: MFA }), { acrValues: ['a b'] })).rejects.toThrow(TypeError);
  });
});
