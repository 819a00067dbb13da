/** The `WWW-Authenticate` parser (RFC 9110 §11.6.1) behind `stepUpChallenge()`. */
import { describe, expect, it } from 'vitest';
import { parseChallenges } from '../../src/internal/challenges.js';

describe('parseChallenges', () => {
  it('reads several challenges with quoted and token values, lower-casing schemes and names', () => {
    expect(
      parseChallenges(
        'Bearer realm="api", error="insufficient_user_authentication", acr_values="a b", max_age="300", DPoP realm="api", algs="ES256 EdDSA"',
      ),
    ).toEqual([
      {
        scheme: 'bearer',
        params: {
          realm: 'api',
          error: 'insufficient_user_authentication',
          acr_values: 'a b',
          max_age: '300',
        },
      },
      { scheme: 'dpop', params: { realm: 'api', algs: 'ES256 EdDSA' } },
    ]);
    expect(parseChallenges('NEWAUTH  Max_Age = 5 ,Error=x')).toEqual([
      { scheme: 'newauth', params: { max_age: '5', error: 'x' } },
    ]);
  });

  it('unescapes quoted-pairs and keeps commas inside quotes', () => {
    expect(parseChallenges('Bearer error_description="a \\"quoted\\", text\\\\", error="e"')).toEqual([
      { scheme: 'bearer', params: { error_description: 'a "quoted", text\\', error: 'e' } },
    ]);
  });

  it('skips a token68 and reads the challenges after it', () => {
    expect(parseChallenges('Basic abc==, Negotiate, Bearer error="x"')).toEqual([
      { scheme: 'basic', params: {} },
      { scheme: 'negotiate', params: {} },
      { scheme: 'bearer', params: { error: 'x' } },
    ]);
  });

  it('keeps the first of a repeated name, and stops at the first malformed part', () => {
    expect(parseChallenges('Bearer error="first", error="second"')[0]?.params.error).toBe('first');
    expect(parseChallenges('Bearer error="ok", x="unterminated')).toEqual([
      { scheme: 'bearer', params: { error: 'ok' } },
    ]);
    expect(parseChallenges('Bearer realm="a", error=, x=y')).toEqual([
      { scheme: 'bearer', params: { realm: 'a' } },
    ]);
    // Right after the scheme, `error=` is a token68 (RFC 9110's grammar), not an empty error.
    expect(parseChallenges('Bearer error=, x=y')).toEqual([{ scheme: 'bearer', params: { x: 'y' } }]);
    expect(parseChallenges('')).toEqual([]);
    expect(parseChallenges('"quoted" Bearer')).toEqual([]);
  });

  it('never lets a parameter name reach the prototype', () => {
    const [challenge] = parseChallenges('Bearer __proto__="x", constructor="y"');
    expect(Object.entries(challenge!.params)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
    expect(Object.getPrototypeOf(challenge!.params)).toBeNull();
  });
});
