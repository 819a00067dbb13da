/**
 * What a token exchange hands to the JWT customizer of the same request: the verified `act` claim and
 * the subject token's `context` (for `getCustomJwtClaims`). Keyed by the request's Koa context, so it
 * lives exactly as long as the request.
 *
 * @module
 */

/** The RFC 8693 `act` claim the issuer writes: only `sub`, nested for a chain. */
export interface ActClaim {
  readonly sub: string;
  readonly act?: ActClaim;
}

/** Facts of one token exchange. */
export interface ExchangeState {
  /** The `subject_token_type` that was redeemed. */
  readonly subjectTokenType: string;
  /** Set only when an actor token was given. */
  readonly act: ActClaim | undefined;
  /** The `context` given when the subject token was created (`{}` for personal access tokens). */
  readonly subjectTokenContext: Readonly<Record<string, unknown>>;
}

const states = new WeakMap<object, ExchangeState>();

/** Attach the exchange to a request. */
export function setExchangeState(ctx: object, state: ExchangeState): void {
  states.set(ctx, state);
}

/** The exchange of a request, if it is one. */
export function getExchangeState(ctx: object | undefined): ExchangeState | undefined {
  return ctx === undefined ? undefined : states.get(ctx);
}
