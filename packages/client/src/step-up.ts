/**
 * RFC 9470 step-up on the client side: recognise an API's 401 `insufficient_user_authentication`
 * challenge in its answer, and read the `acr_values` / `max_age` it names, to pass to
 * `client.signIn({ acrValues, maxAge })`.
 *
 * Any `Response` will do: one of `client.fetch()`, or of a request made with `getAccessToken()` and the
 * page's own `fetch`. Only the `WWW-Authenticate` header is read, never the body.
 *
 * @module
 */
import { parseChallenges } from './internal/challenges.js';

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

const MAX_AGE = /^(?:0|[1-9]\d{0,9})$/;

/**
 * The step-up an API asks for in its answer: `undefined` unless it is a 401 whose `Bearer` or `DPoP`
 * challenge has `error="insufficient_user_authentication"` (RFC 9470 §3).
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
  const header = response.headers.get('www-authenticate');
  const challenge =
    header === null
      ? undefined
      : parseChallenges(header).find(
          (c) =>
            (c.scheme === 'bearer' || c.scheme === 'dpop') &&
            c.params.error === 'insufficient_user_authentication',
        );
  if (challenge === undefined) return undefined;
  const { acr_values: acr, max_age: age } = challenge.params;
  const acrValues = acr?.split(' ').filter((v) => v !== '');
  return Object.freeze({
    acrValues: acrValues === undefined || acrValues.length === 0 ? undefined : Object.freeze(acrValues),
    maxAge: age !== undefined && MAX_AGE.test(age) ? Number(age) : undefined,
  });
}
