/**
 * The ready-made bad tokens of a test issuer (`issuer.tokens`): each is wrong in exactly one way, so a
 * negative test fails for the reason it names and no other.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { DEFAULTS, type TestAlgorithm } from './defaults.js';
import { nowSeconds, signCompact } from './jws.js';
import { generateSigningKey, type SigningKey } from './keys.js';
import { type SignOptions, validateClaims, validateSignOptions } from './options.js';
import { type ClaimDefaults, tamperSignature, tokenHeader, unsignedToken } from './tokens.js';
import type { BadTokens, Claims } from './types.js';

/** What the bad tokens need from their issuer. */
export interface TokenMinter {
  /** Sign with a published key: `base` claims, then the caller's `claims` over them. */
  mint(claims: unknown, options: unknown, base?: Claims): string;
  /** Build the claims of a token (defaults, then `claims`) without signing it. */
  claims(claims: unknown, options: SignOptions): Record<string, unknown>;
  /** The key that signs new tokens. */
  readonly activeKey: SigningKey;
  /** The claim defaults, for lifetimes. */
  readonly defaults: ClaimDefaults;
}

/**
 * Create the bad-token factories of one issuer. The never-published key behind `unknownKey()` is made on
 * first use and kept per issuer (one per algorithm), never shared with another issuer.
 *
 * @example
 * ```ts
 * const tokens = createBadTokens(minter);
 * await tokens.expired({ scope: 'read:orders' });
 * ```
 */
export function createBadTokens(minter: TokenMinter): BadTokens {
  const strangers = new Map<TestAlgorithm, Promise<SigningKey>>();
  const stranger = (alg: TestAlgorithm): Promise<SigningKey> => {
    let key = strangers.get(alg);
    if (key === undefined) {
      key = generateSigningKey(alg, `unknown-${randomUUID()}`);
      strangers.set(alg, key);
    }
    return key;
  };

  /** Time-dependent claims under the caller's claims (which may override them). */
  const timed = (claims: Claims | undefined, make: (now: number) => Claims): Claims => ({
    ...make(nowSeconds()),
    ...validateClaims(claims),
  });

  return Object.freeze({
    expired: async (claims?: Claims, options?: SignOptions) =>
      minter.mint(
        timed(claims, (now) => ({
          iat: now - DEFAULTS.skew - minter.defaults.expiresIn,
          exp: now - DEFAULTS.skew,
        })),
        options,
      ),
    notYetValid: async (claims?: Claims, options?: SignOptions) =>
      minter.mint(
        timed(claims, (now) => ({
          nbf: now + DEFAULTS.skew,
          exp: now + DEFAULTS.skew + minter.defaults.expiresIn,
        })),
        options,
      ),
    wrongAudience: async (claims?: Claims, options?: SignOptions) =>
      minter.mint(claims, options, { aud: DEFAULTS.wrongAudience }),
    wrongIssuer: async (claims?: Claims, options?: SignOptions) =>
      minter.mint(claims, options, { iss: DEFAULTS.wrongIssuer }),
    unknownKey: async (claims?: Claims, options?: SignOptions) => {
      const opts = validateSignOptions(options);
      const key = await stranger(minter.activeKey.alg);
      // opts.kid names the kid to claim here (e.g. the real one, to forge a signature), not a published key.
      const header = tokenHeader(key, { ...opts, header: { kid: opts.kid ?? key.kid, ...opts.header } });
      return signCompact(key, header, minter.claims(claims, opts));
    },
    tamperedSignature: async (claims?: Claims, options?: SignOptions) =>
      tamperSignature(minter.mint(claims, options)),
    algNone: async (claims?: Claims, options?: SignOptions) => {
      const opts = validateSignOptions(options);
      const header: Record<string, unknown> = {
        kid: minter.activeKey.kid,
        typ: opts.typ ?? DEFAULTS.typ,
        ...opts.header,
        alg: 'none',
      };
      for (const name of Object.keys(header)) if (header[name] === undefined) delete header[name];
      return unsignedToken(minter.claims(claims, opts), header);
    },
    wrongType: async (claims?: Claims, options?: SignOptions) =>
      minter.mint(claims, { ...validateSignOptions(options), typ: DEFAULTS.wrongTyp }),
    noExpiry: async (claims?: Claims, options?: SignOptions) =>
      minter.mint({ ...validateClaims(claims), exp: undefined }, options),
  });
}
