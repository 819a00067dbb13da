/**
 * The RFC 6750 §3 challenge builder (src/challenge.ts), and security catalogue A case 49: claim values
 * never reach `error_description`, and no `"`, `\`, CR or LF ever reaches a header parameter.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildChallenge,
  type ChallengeParams,
  InsufficientScopeError,
  InvalidDpopProofError,
  sanitizeChallengeValue,
} from '../src/index.js';
import { parseChallenges } from './helpers/assertions.js';
import { claims, jwksOf, MAIN_ALGS, makeKey, signToken } from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';

/** Any UTF-16 code unit (lone surrogates included); much faster to generate than fast-check's 'binary' unit. */
const anyChar = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

/** RFC 6750 §3: quoted values use %x20-21 / %x23-5B / %x5D-7E only. */
const SAFE_VALUE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/**
 * A whole header value: one or more challenges (`Bearer` or `DPoP`), each with `name="safe value"`
 * pairs separated by `, `.
 */
const PAIRS =
  '(?: [a-z_]+="[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*"(?:, [a-z_]+="[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]*")*)?';
const CHALLENGE = new RegExp(`^(?:Bearer|DPoP)${PAIRS}(?:, DPoP${PAIRS})?$`);
/** The verifier's default `DPoP` challenge (DPoP `allowed`, default proof algorithms). */
const DPOP = (realm: string) => `DPoP realm="${realm}", algs="ES256 EdDSA RS256 PS256"`;

describe('sanitizeChallengeValue', () => {
  it('keeps every character RFC 6750 allows in a quoted value', () => {
    let allowed = '';
    for (let c = 0x20; c <= 0x7e; c++) if (c !== 0x22 && c !== 0x5c) allowed += String.fromCharCode(c);
    expect(sanitizeChallengeValue(allowed)).toBe(allowed);
  });

  it.each([
    ['a double quote', 'a"b', 'ab'],
    ['a backslash', 'a\\b', 'ab'],
    ['CR LF', 'a\r\nSet-Cookie: x=1', 'aSet-Cookie: x=1'],
    ['NUL and other controls', 'a\u0000\u0001\u001f\u007fb', 'ab'],
    ['a tab', 'a\tb', 'ab'],
    ['non-ASCII', 'caf\u00e9 \u2028\u{1f600}', 'caf '],
    ['an escaped-quote breakout', 'x\\", error="none', 'x, error=none'],
  ])('drops %s', (_name, input, output) => {
    expect(sanitizeChallengeValue(input)).toBe(output);
  });

  it('only ever outputs safe characters, and is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyChar, maxLength: 64 }), (input) => {
        const out = sanitizeChallengeValue(input);
        expect(out).toMatch(SAFE_VALUE);
        expect(sanitizeChallengeValue(out)).toBe(out);
      }),
      { numRuns: 300 },
    );
  });
});

describe('buildChallenge', () => {
  it('writes the attributes in a fixed order', () => {
    expect(
      buildChallenge({
        resourceMetadata: 'https://api.test/.well-known/oauth-protected-resource',
        scope: 'read:orders write:orders',
        errorDescription: 'The access token does not grant the required scope',
        error: 'insufficient_scope',
        realm: 'orders',
      }),
    ).toBe(
      'Bearer realm="orders", error="insufficient_scope", error_description="The access token does not grant the required scope", scope="read:orders write:orders", resource_metadata="https://api.test/.well-known/oauth-protected-resource"',
    );
  });

  it('omits absent attributes', () => {
    expect(buildChallenge({})).toBe('Bearer');
    expect(buildChallenge({ realm: 'api' })).toBe('Bearer realm="api"');
    expect(buildChallenge({ error: 'invalid_token' })).toBe('Bearer error="invalid_token"');
    expect(buildChallenge({ realm: 'api', error: undefined, scope: undefined })).toBe('Bearer realm="api"');
  });

  it('keeps an empty value as an empty quoted string', () => {
    expect(buildChallenge({ realm: '' })).toBe('Bearer realm=""');
  });

  it('sanitizes every attribute: no quote, backslash, CR or LF can break out', () => {
    const evil = 'x", error="none"\r\nSet-Cookie: session=1\\';
    const header = buildChallenge({
      realm: evil,
      error: evil,
      errorDescription: evil,
      scope: evil,
      resourceMetadata: evil,
    });
    expect(header).toMatch(CHALLENGE);
    expect(header).not.toMatch(/[\r\n\\]/);
    expect(header.match(/"/g)).toHaveLength(10);
  });

  it('builds the DPoP scheme with algs (RFC 9449 §7.1)', () => {
    expect(buildChallenge({ scheme: 'DPoP', realm: 'api', algs: 'ES256 PS256' })).toBe(
      'DPoP realm="api", algs="ES256 PS256"',
    );
    expect(buildChallenge({ scheme: 'DPoP' })).toBe('DPoP');
    expect(buildChallenge({ scheme: 'DPoP', algs: 'ES256"\r\n' })).toBe('DPoP algs="ES256"');
  });

  it('errors always yield well-formed challenges in every DPoP mode and scheme', () => {
    const value = fc.string({ unit: anyChar, maxLength: 30 });
    fc.assert(
      fc.property(
        value,
        value,
        fc.constantFrom('allowed', 'required', 'disabled') as fc.Arbitrary<
          'allowed' | 'required' | 'disabled'
        >,
        fc.constantFrom('bearer', 'dpop') as fc.Arbitrary<'bearer' | 'dpop'>,
        (realm, scope, mode, scheme) => {
          const context = { realm, dpop: { mode, algs: 'ES256' }, scheme };
          for (const error of [
            new InsufficientScopeError([scope], 'all', context),
            new InvalidDpopProofError('dpop_htu', context),
          ]) {
            const header = error.headers['www-authenticate']!;
            expect(header).toMatch(CHALLENGE);
            const parsed = parseChallenges(header);
            expect(parsed.filter((c) => c.params.error !== undefined)).toHaveLength(1);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('always yields a well-formed header, whatever the attribute values', () => {
    const value = fc.option(fc.string({ unit: anyChar, maxLength: 40 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.record({
          realm: value,
          error: value,
          errorDescription: value,
          scope: value,
          resourceMetadata: value,
        }),
        (params) => {
          const header = buildChallenge(params as ChallengeParams);
          expect(header).toMatch(CHALLENGE);
          const present = Object.values(params).filter((v) => v !== undefined).length;
          const [challenge, ...others] = parseChallenges(header);
          expect(others).toEqual([]);
          expect(Object.keys(challenge?.params ?? {})).toHaveLength(present);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is what errors put in WWW-Authenticate, sanitized even for caller-supplied scopes', () => {
    const error = new InsufficientScopeError(['read:orders', 'x"\r\nSet-Cookie: a=1'], 'all', {
      realm: 'orders',
    });
    const header = error.headers['www-authenticate']!;
    expect(header).toMatch(CHALLENGE);
    expect(header).toContain('scope="read:orders xSet-Cookie: a=1"');
  });
});

describe('A49: claim values never reach a response', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness(jwksOf(...MAIN_ALGS.map((alg) => makeKey(alg))));
  });
  afterAll(() => harness.close());

  const INJECTION = 'x"\r\nSet-Cookie: pwned=1\\';
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['iss', { iss: `https://evil.test/${INJECTION}` }, 'issuer'],
    ['aud', { aud: [INJECTION] }, 'audience'],
    ['exp (expired)', { exp: 1, note: INJECTION }, 'expired'],
    ['sub of the wrong type', { sub: [INJECTION] }, 'claim'],
    ['act', { act: { sub: 7, note: INJECTION } }, 'actor'],
    ['client_id of the wrong type', { client_id: { v: INJECTION } }, 'claim'],
  ];

  describe.each(MAIN_ALGS)('%s', (alg) => {
    const key = makeKey(alg);

    it.each(cases.map(([name, , reason]) => [name, reason]))(
      'a bad %s → invalid_token (%s) with no claim value echoed',
      async (name, reason) => {
        const overrides = cases.find(([n]) => n === name)![1];
        const verifier = harness.verifier({ realm: 'orders' });
        const error = await verifier.verify(signToken(key, claims(overrides))).then(
          () => expect.unreachable('the token must be refused'),
          (e: unknown) => e as InsufficientScopeError,
        );
        expect(error).toMatchObject({ status: 401, code: 'invalid_token', reason });
        const header = error.headers['www-authenticate']!;
        expect(header).toMatch(CHALLENGE);
        expect(header).toBe(
          `Bearer realm="orders", error="invalid_token", error_description="${error.description}", ${DPOP('orders')}`,
        );
        const exposed = [
          header,
          error.message,
          error.description,
          JSON.stringify(error.toJSON()),
          JSON.stringify(error),
        ].join('\n');
        for (const fragment of ['pwned', 'Set-Cookie', 'evil.test', '\r', '\n\n'])
          expect(exposed).not.toContain(fragment);
      },
    );

    it('a granted scope list with injection characters never reaches the insufficient_scope challenge', async () => {
      const verifier = harness.verifier();
      const token = signToken(key, claims({ scope: `read:orders ${INJECTION}` }));
      const error = await verifier.verify(token, { scopes: 'admin' }).then(
        () => expect.unreachable('the scope check must fail'),
        (e: unknown) => e as InsufficientScopeError,
      );
      expect(error).toMatchObject({ status: 403, code: 'insufficient_scope' });
      expect(error.headers['www-authenticate']).toBe(
        `Bearer realm="api", error="insufficient_scope", error_description="${error.description}", scope="admin", ${DPOP('api')}`,
      );
    });
  });
});
