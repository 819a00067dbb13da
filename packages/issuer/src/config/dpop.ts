/**
 * The `dpop` setting of the issuer (RFC 9449 at the token endpoint): whether proofs must carry a server
 * nonce. DPoP itself is always on: a token request with a valid proof gets a key-bound (`cnf.jkt`)
 * access token, one without gets a Bearer token unless its application requires DPoP.
 *
 * @module
 */
import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { parseSettings } from './parse.js';

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

const DPOP = z.strictObject({ requireNonce: z.boolean().optional() });

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
  const settings = parseSettings(DPOP, value, 'dpop');
  return Object.freeze({ requireNonce: settings.requireNonce ?? DEFAULTS.dpop.requireNonce });
}
