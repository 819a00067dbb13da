/**
 * Signing keys of a test issuer: generation with jose, the public JWKS, and rotation with a grace period
 * (the previous key stays published, like a real issuer does while old tokens are still alive).
 *
 * Keys are generated per issuer and never cached across issuers, so no state leaks between tests.
 *
 * @module
 */
import { KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { TEST_ALGORITHMS, type TestAlgorithm } from './defaults.js';

/**
 * A public JWK as published in the JWKS: key members plus `kid`, `alg` and `use: "sig"`.
 *
 * @example
 * ```ts
 * const jwk: PublicJwk = issuer.jwks().keys[0]!; // { kty: 'EC', crv: 'P-256', x, y, kid, alg: 'ES256', use: 'sig' }
 * ```
 */
export type PublicJwk = JWK & { kid: string; alg: TestAlgorithm; use: 'sig' };

/**
 * A JWK Set document (RFC 7517 §5).
 *
 * @example
 * ```ts
 * const jwks: TestJwks = issuer.jwks();
 * jwks.keys.map((k) => k.kid); // [issuer.kid]
 * ```
 */
export interface TestJwks {
  keys: PublicJwk[];
}

/** A generated key pair with its identity. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: TestAlgorithm;
  /** Node key object of the private key, for signing. */
  readonly privateKey: KeyObject;
  /** The public JWK exactly as it is published. */
  readonly publicJwk: Readonly<PublicJwk>;
}

/**
 * Generate a key pair for `alg` (RSA: 2048 bits; EdDSA: Ed25519). The `kid` defaults to the RFC 7638
 * thumbprint of the public key, which is unique per key.
 *
 * @example
 * ```ts
 * const key = await generateSigningKey('ES256');
 * key.publicJwk; // { kty: 'EC', crv: 'P-256', x, y, kid, alg: 'ES256', use: 'sig' }
 * ```
 */
export async function generateSigningKey(alg: TestAlgorithm, kid?: string): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, {
    extractable: true,
    ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
  });
  const jwk = await exportJWK(pair.publicKey);
  const publicJwk = Object.freeze({
    ...jwk,
    kid: kid ?? (await calculateJwkThumbprint(jwk, 'sha256')),
    alg,
    use: 'sig' as const,
  });
  return Object.freeze({ kid: publicJwk.kid, alg, privateKey: KeyObject.from(pair.privateKey), publicJwk });
}

/**
 * Options of `issuer.rotateKeys()`.
 *
 * @example
 * ```ts
 * await issuer.rotateKeys({ kid: 'key-2024-06', dropPrevious: true });
 * ```
 */
export interface RotateOptions {
  /** Unpublish every previous key at once (an emergency rotation). Default `false`: the previous key stays published. */
  dropPrevious?: boolean;
  /** `kid` of the new key. Default: its JWK thumbprint. */
  kid?: string;
  /** Algorithm of the new key. Default: the algorithm of the current key. */
  alg?: TestAlgorithm;
}

/**
 * The keys of one issuer: one active signing key, and the previous one kept published after a rotation.
 *
 * @example
 * ```ts
 * const ring = new KeyRing(await generateSigningKey('ES256'));
 * await ring.rotate();
 * ring.jwks().keys.length; // 2: the new key first, then the previous one
 * ```
 */
export class KeyRing {
  #active: SigningKey;
  #previous: SigningKey | undefined;

  constructor(active: SigningKey) {
    this.#active = active;
  }

  /** The key that signs new tokens. */
  get active(): SigningKey {
    return this.#active;
  }

  /** Published keys, the active one first. */
  get published(): readonly SigningKey[] {
    return this.#previous === undefined ? [this.#active] : [this.#active, this.#previous];
  }

  /** The published key with this `kid`, or `undefined`. */
  find(kid: string): SigningKey | undefined {
    return this.published.find((key) => key.kid === kid);
  }

  /**
   * Make a new key active. The old active key stays published until the next rotation (a grace period
   * for tokens it signed), unless `dropPrevious` is set. Keys older than that are unpublished.
   */
  async rotate(options: RotateOptions = {}): Promise<SigningKey> {
    if (options === null || typeof options !== 'object')
      throw new TypeError('rotateKeys options must be an object');
    if (options.kid !== undefined && (typeof options.kid !== 'string' || options.kid.length === 0)) {
      throw new TypeError('"kid" option must be a non-empty string');
    }
    if (options.kid !== undefined && this.find(options.kid) !== undefined) {
      throw new TypeError(`"kid" option must differ from the published keys' kids`);
    }
    if (options.alg !== undefined && !TEST_ALGORITHMS.includes(options.alg)) {
      throw new TypeError(`"alg" option must be one of ${TEST_ALGORITHMS.join(', ')}`);
    }
    const next = await generateSigningKey(options.alg ?? this.#active.alg, options.kid);
    this.#previous = options.dropPrevious === true ? undefined : this.#active;
    this.#active = next;
    return next;
  }

  /** The public JWKS: the active key first. A fresh object on every call. */
  jwks(): TestJwks {
    return { keys: this.published.map((key) => ({ ...key.publicJwk })) };
  }
}
