/**
 * Property-based tests of the whole verifier against a loopback JWKS: whatever string, mutated token or
 * signed random JSON it is given, it settles quickly and only ever rejects with an AuthError
 * (`invalid_token` for verify()); and every valid token verifies.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthInfo, InvalidTokenError, isAuthError, type Verifier } from '../src/index.js';
import {
  AUDIENCE,
  b64url,
  claims,
  ISSUER,
  jwksOf,
  MAIN_ALGS,
  makeKey,
  signToken,
} from './helpers/fixtures.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { signBytes } from './helpers/tokens.js';

/** Any UTF-16 code unit (lone surrogates included); much faster to generate than fast-check's 'binary' unit. */
const anyChar = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

const RUNS = { numRuns: 300 };
/** Longest time one verification may take: keys are cached after the first fetch, so this is generous. */
const BOUND_MS = 2_000;
const keys = MAIN_ALGS.map((alg) => makeKey(alg));
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

let harness: Harness;
let verifier: Verifier;
beforeAll(async () => {
  harness = await startHarness(jwksOf(...keys));
  verifier = harness.verifier();
  await verifier.warmUp();
});
afterAll(() => harness.close());

/** Settle `promise` within the bound; a hang fails the property. */
async function settle(
  promise: Promise<AuthInfo>,
): Promise<{ ok: true; info: AuthInfo } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`verification did not settle within ${BOUND_MS} ms`)),
      BOUND_MS,
    );
  });
  try {
    return await Promise.race([
      promise.then(
        (info) => ({ ok: true as const, info }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** verify() must reject with an InvalidTokenError. */
async function expectInvalid(token: string): Promise<void> {
  const result = await settle(verifier.verify(token));
  expect(result.ok, 'an invalid token was accepted').toBe(false);
  if (!result.ok) {
    expect(result.error).toBeInstanceOf(InvalidTokenError);
    expect(result.error).toMatchObject({ status: 401, code: 'invalid_token' });
  }
}

const keyArb = fc.constantFrom(...keys);

describe('the verifier never fails open and never throws anything but an AuthError', () => {
  it('random strings → invalid_token', async () => {
    const segmentish = fc.string({
      unit: fc.constantFrom(...B64URL, '.', '=', '+', '/', ' ', '\n'),
      maxLength: 120,
    });
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ unit: anyChar, maxLength: 200 }), segmentish), expectInvalid),
      RUNS,
    );
  });

  it('random base64url segments joined by dots → invalid_token', async () => {
    const segment = fc.string({ unit: fc.constantFrom(...B64URL), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), (parts) =>
        expectInvalid(parts.join('.')),
      ),
      RUNS,
    );
  });

  it('random mutations of valid tokens → invalid_token', async () => {
    type Mutation =
      | { kind: 'flip'; at: number; bit: number }
      | { kind: 'replace'; at: number; char: string }
      | { kind: 'insert'; at: number; char: string }
      | { kind: 'delete'; at: number }
      | { kind: 'swap'; a: number; b: number }
      | { kind: 'duplicate'; segment: number }
      | { kind: 'truncate'; keep: number };
    const char = fc.constantFrom(...B64URL, '.', '=', ' ');
    const mutation: fc.Arbitrary<Mutation> = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('swap' as const),
        a: fc.integer({ min: 0, max: 2 }),
        b: fc.integer({ min: 0, max: 2 }),
      }),
      fc.record({ kind: fc.constant('duplicate' as const), segment: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat() }),
    );
    const apply = (token: string, m: Mutation): string => {
      const at = 'at' in m ? m.at % token.length : 0;
      switch (m.kind) {
        case 'flip':
          return (
            token.slice(0, at) +
            String.fromCharCode(token.charCodeAt(at) ^ (1 << m.bit)) +
            token.slice(at + 1)
          );
        case 'replace':
          return token.slice(0, at) + m.char + token.slice(at + 1);
        case 'insert':
          return token.slice(0, at) + m.char + token.slice(at);
        case 'delete':
          return token.slice(0, at) + token.slice(at + 1);
        case 'swap': {
          const parts = token.split('.');
          [parts[m.a], parts[m.b]] = [parts[m.b]!, parts[m.a]!];
          return parts.join('.');
        }
        case 'duplicate': {
          const parts = token.split('.');
          parts.splice(m.segment, 0, parts[m.segment]!);
          return parts.join('.');
        }
        case 'truncate':
          return token.slice(0, m.keep % token.length);
      }
    };
    await fc.assert(
      fc.asyncProperty(keyArb, fc.array(mutation, { minLength: 1, maxLength: 3 }), async (key, mutations) => {
        const token = signToken(key);
        const mutated = mutations.reduce(apply, token);
        if (mutated === token) return;
        await expectInvalid(mutated);
      }),
      RUNS,
    );
  });

  it('validly signed random JSON headers and payloads → verified only when actually valid, else an AuthError', async () => {
    const anyValue = fc.jsonValue({ maxDepth: 3 });
    /** Mostly the valid value, sometimes one of the given alternatives or any JSON value. */
    const mostly = (valid: unknown, ...alternatives: unknown[]) =>
      fc.oneof(
        { weight: 8, arbitrary: fc.constant(valid) },
        { weight: 1, arbitrary: fc.constantFrom(undefined, ...alternatives) },
        { weight: 1, arbitrary: anyValue },
      );
    /** Mostly absent, sometimes any JSON value. */
    const rarely = fc.oneof(
      { weight: 10, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: anyValue },
    );
    const header = (key: (typeof keys)[number]) =>
      fc.record({
        alg: mostly(key.alg, ...MAIN_ALGS, 'none', 'HS256', 'RSA-OAEP', ''),
        kid: mostly(key.kid, 'unknown', '__proto__', ...keys.map((k) => k.kid)),
        typ: mostly('at+jwt', 'JWT', 'dpop+jwt'),
        crit: rarely,
        enc: rarely,
        zip: rarely,
        jku: fc.constantFrom(undefined, 'http://127.0.0.1:1/jwks'),
        extra: rarely,
      });
    const payload = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          iss: mostly(ISSUER, `${ISSUER}/`, 'https://evil.test'),
          aud: mostly(AUDIENCE, [AUDIENCE, 'x'], 'https://other.test', [], `${AUDIENCE}.evil`),
          exp: mostly(Math.floor(Date.now() / 1000) + 600, 1, '9999999999'),
          nbf: rarely,
          iat: rarely,
          sub: mostly('user-1', ''),
          scope: rarely,
          act: rarely,
          client_id: rarely,
        }),
      },
      { weight: 1, arbitrary: anyValue },
    );
    const signed = keyArb.chain((key) => fc.tuple(fc.constant(key), header(key), payload));
    const seen = { accepted: 0, rejected: 0 };
    await fc.assert(
      fc.asyncProperty(signed, async ([key, h, p]) => {
        const token = signBytes(key, JSON.stringify(h), JSON.stringify(p) ?? 'null');
        if (token.length > 8192) return;
        const result = await settle(verifier.verify(token));
        seen[result.ok ? 'accepted' : 'rejected']++;
        if (result.ok) {
          // Accepted only if the header really names this key's alg and the core claims are right.
          expect(h.alg).toBe(key.alg);
          expect(result.info.issuer).toBe(ISSUER);
          expect(result.info.audience).toContain(AUDIENCE);
        } else {
          expect(isAuthError(result.error), String(result.error)).toBe(true);
          expect(result.error).toBeInstanceOf(InvalidTokenError);
        }
      }),
      RUNS,
    );
    // The generators reach both outcomes, so the property checks something on each side.
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.rejected).toBeGreaterThan(0);
  });

  it('random Authorization headers → an AuthError from authenticate(), never anything else', async () => {
    const scheme = fc.constantFrom('Bearer ', 'bearer ', 'Basic ', '', 'Bearer', 'Bearer  ');
    await fc.assert(
      fc.asyncProperty(scheme, fc.string({ unit: anyChar, maxLength: 80 }), async (s, rest) => {
        const result = await settle(verifier.authenticate({ headers: { authorization: s + rest } }));
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(isAuthError(result.error), String(result.error)).toBe(true);
          expect([400, 401]).toContain((result.error as { status: number }).status);
        }
      }),
      RUNS,
    );
  });
});

describe('every valid token verifies', () => {
  it('with random subjects, scopes, typ spellings and extra claims', async () => {
    const scopeToken = fc.string({
      unit: fc.constantFrom(...B64URL, ':', '.', '/'),
      minLength: 1,
      maxLength: 12,
    });
    const reserved = new Set([
      'iss',
      'aud',
      'exp',
      'nbf',
      'iat',
      'sub',
      'scope',
      'scp',
      'act',
      'client_id',
      'jti',
      'azp',
    ]);
    const extras = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !reserved.has(k)),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        keyArb,
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.uniqueArray(scopeToken, { maxLength: 5 }),
        fc.constantFrom(undefined, 'at+jwt', 'AT+JWT', 'application/at+jwt', 'JWT'),
        fc.boolean(),
        extras,
        async (key, sub, scopes, typ, withKid, extra) => {
          const payload = claims({ ...extra, sub, scope: scopes.join(' ') });
          const token = signToken(key, payload, { header: { typ, kid: withKid ? key.kid : undefined } });
          const result = await settle(verifier.verify(token));
          if (!result.ok) throw result.error;
          expect(result.info.subject).toBe(sub);
          expect(result.info.scopes).toEqual(scopes);
          expect(result.info.claims).toEqual(JSON.parse(JSON.stringify(payload)));
        },
      ),
      RUNS,
    );
  });

  it('from the base64url of the exact signing input, whatever the JSON formatting', async () => {
    await fc.assert(
      fc.asyncProperty(keyArb, fc.constantFrom(0, 1, 2, '\t'), async (key, indent) => {
        const header = JSON.stringify({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }, null, indent);
        const body = JSON.stringify(claims(), null, indent);
        const token = signBytes(key, header, body);
        expect(token.split('.')[0]).toBe(b64url(header));
        const result = await settle(verifier.verify(token));
        if (!result.ok) throw result.error;
        expect(result.info.subject).toBe('user-42');
      }),
      { numRuns: 40 },
    );
  });
});
