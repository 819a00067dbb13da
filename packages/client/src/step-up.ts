/**
 * RFC 9470 step-up on the client side: recognise an API's 401 `insufficient_user_authentication`
 * challenge in an answer of `client.fetch()`, and read the `acr_values` / `max_age` it names, to pass to
 * `client.signIn({ acrValues, maxAge })`.
 *
 * The challenge is the one oauth4webapi has already parsed (RFC 9110 §11.6.1 syntax) when
 * `client.fetch()` got the answer: it is remembered per `Response`, so nothing is parsed twice and no
 * hand-written header parser is needed.
 *
 * @module
 */
import type * as oauth from 'oauth4webapi';

/**
 * What an API's step-up challenge asks for: pass it to `client.signIn()`.
 *
 * @example
 * ```ts
 * const challenge: StepUpChallenge = { acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 };
 * await client.signIn(challenge);
 * ```
 */
export interface StepUpChallenge {
  /** The `acr` values the API accepts, most preferred first, or `undefined` when it names none. */
  readonly acrValues: readonly string[] | undefined;
  /** The oldest sign-in the API accepts, in seconds, or `undefined` when it names none. */
  readonly maxAge: number | undefined;
}

const parsed = new WeakMap<Response, readonly oauth.WWWAuthenticateChallenge[]>();

/**
 * Remember the challenges oauth4webapi parsed for an answer of `client.fetch()` (internal: not
 * exported from the package).
 *
 * @example
 * ```ts
 * if (err instanceof oauth.WWWAuthenticateChallengeError) rememberChallenges(err.response, err.cause);
 * ```
 */
export function rememberChallenges(
  response: Response,
  challenges: readonly oauth.WWWAuthenticateChallenge[],
) {
  parsed.set(response, challenges);
}

const MAX_AGE = /^(?:0|[1-9]\d{0,9})$/;

/**
 * The step-up an API asks for in an answer of `client.fetch()`: `undefined` unless it is a 401 whose
 * `Bearer` or `DPoP` challenge has `error="insufficient_user_authentication"` (RFC 9470 §3).
 *
 * @example
 * ```ts
 * import { stepUpChallenge } from '@gatehouse/client';
 *
 * const res = await client.fetch(API, `${API}/payments`, { method: 'POST', body });
 * const stepUp = stepUpChallenge(res);
 * if (stepUp !== undefined) await client.signIn({ acrValues: stepUp.acrValues, maxAge: stepUp.maxAge });
 * ```
 */
export function stepUpChallenge(response: Response): StepUpChallenge | undefined {
  if (response.status !== 401) return undefined;
  const challenge = parsed
    .get(response)
    ?.find(
      (c) =>
        (c.scheme === 'bearer' || c.scheme === 'dpop') &&
        c.parameters.error === 'insufficient_user_authentication',
    );
  if (challenge === undefined) return undefined;
  const { acr_values: acr, max_age: age } = challenge.parameters;
  const acrValues = acr?.split(' ').filter((v) => v !== '');
  return Object.freeze({
    acrValues: acrValues === undefined || acrValues.length === 0 ? undefined : Object.freeze(acrValues),
    maxAge: age !== undefined && MAX_AGE.test(age) ? Number(age) : undefined,
  });
}
