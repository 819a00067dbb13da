/**
 * Types of oidc-provider's own DPoP proof check (`lib/helpers/validate_dpop.js`), which its built-in
 * grants run and which `dpop.ts` runs for the token-exchange grant, so that every grant checks proofs,
 * nonces and replays the same way. oidc-provider ships no types for it.
 */
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  import type { KoaContextWithOIDC, Provider } from 'oidc-provider';

  /** A verified proof: the RFC 7638 thumbprint of its key, its `jti` and `iat`. */
  export interface ValidatedDpop {
    readonly thumbprint: string;
    readonly jti: string;
    readonly iat: number;
  }

  /**
   * Verify the request's `DPoP` header (type, algorithm, signature, `htm`, `htu`, `iat`, nonce):
   * `undefined` without one; throws `invalid_dpop_proof` or `use_dpop_nonce`.
   */
  export default function validateDpop(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    accessToken?: string,
  ): Promise<ValidatedDpop | undefined>;

  /** Refuse a proof whose `jti` was seen before (throws an instance of `ErrorClass`). */
  export function checkDpopReplay(
    provider: Provider,
    ctx: KoaContextWithOIDC,
    dPoP: ValidatedDpop | undefined,
    clientId: string,
    ErrorClass?: new (description: string) => Error,
  ): Promise<void>;
}
