/**
 * The `dpop` setting of the issuer (RFC 9449 at the token endpoint): whether proofs must carry a server
 * nonce. DPoP itself is always on: a token request with a valid proof gets a key-bound (`cnf.jkt`)
 * access token, one without gets a Bearer token unless its application requires DPoP.
 *
 * @module
 */
import { ConfigError } from '../errors.js';
import { DEFAULTS } from './defaults.js';

/**
 * DPoP settings.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * // Every proof at the token endpoint must carry a nonce the issuer handed out (RFC 9449 §8).
 * const issuer = await createIssuer({ baseUrl: 'https://id.example.com', dpop: { requireNonce: true } });
 * ```
 */
export interface DpopConfig {
  /**
   * Require a server nonce in every DPoP proof at the token endpoint. Default `false` (a proof's `iat`
   * must be recent instead). Environment: `GATEHOUSE_DPOP_REQUIRE_NONCE`.
   */
  requireNonce?: boolean;
}

/**
 * {@link DpopConfig} after defaults and validation (`issuer.config.dpop`).
 *
 * @example
 * ```ts
 * const { requireNonce }: ResolvedDpopConfig = issuer.config.dpop;
 * ```
 */
export interface ResolvedDpopConfig {
  readonly requireNonce: boolean;
}

/**
 * Validate the `dpop` setting and apply {@link DEFAULTS}`.dpop`. Throws a `ConfigError` naming a bad
 * or unknown member.
 *
 * @example
 * ```ts
 * resolveDpopConfig({ requireNonce: true }); // { requireNonce: true }
 * resolveDpopConfig(undefined); // { requireNonce: false }
 * ```
 */
export function resolveDpopConfig(value: DpopConfig | undefined): ResolvedDpopConfig {
  if (value === undefined) return Object.freeze({ requireNonce: DEFAULTS.dpop.requireNonce });
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError('dpop', 'must be an object');
  for (const key of Object.keys(value)) {
    if (key !== 'requireNonce') throw new ConfigError(`dpop.${key}`, 'is not a known setting (requireNonce)');
  }
  const requireNonce = value.requireNonce ?? DEFAULTS.dpop.requireNonce;
  if (typeof requireNonce !== 'boolean') throw new ConfigError('dpop.requireNonce', 'must be true or false');
  return Object.freeze({ requireNonce });
}
