/**
 * What an application decides about the impersonations it performs (subject-token exchanges; a
 * personal access token stands in for its own user and is not an impersonation):
 *
 * - `requireActorToken`: every impersonation must carry an actor token, so every token it receives
 *   names who acts (`act`). Checked from the request alone, before the subject token is looked at,
 *   so a refused request does not burn the subject token.
 * - `impersonationTokenTtl`: the lifetime of its impersonation access tokens (default
 *   `DEFAULTS.impersonation.tokenTtl`), never longer than the resource's `accessTokenTtl`.
 *
 * The lifetime is per application rather than per resource: the application that impersonates (a
 * support console, an agent) is what makes an impersonation risky, and it is where the other
 * impersonation policies (`tokenExchangeEnabled`, `requireActorToken`) live; the resource's own
 * lifetime still caps it.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';
import { TokenExchangeError } from '../errors.js';
import type { ApplicationRecord, ResourceRecord } from '../storage/store.js';

/**
 * Refuse an impersonation without an actor token from an application that requires one.
 *
 * @example
 * ```ts
 * checkActorRequired(records.application, { impersonation: true, hasActor: params.actor_token !== undefined });
 * ```
 */
export function checkActorRequired(
  application: Pick<ApplicationRecord, 'requireActorToken'> | undefined,
  request: { readonly impersonation: boolean; readonly hasActor: boolean },
): void {
  if (application?.requireActorToken === true && request.impersonation && !request.hasActor) {
    throw new TokenExchangeError(
      'actor_token_required_by_application',
      'this application requires an actor token for every impersonation: send the acting user’s access token as actor_token',
    );
  }
}

/**
 * The lifetime, in seconds, of an impersonation access token of `application` for `resource`.
 *
 * @example
 * ```ts
 * impersonationTokenTtl({ impersonationTokenTtl: null }, { accessTokenTtl: 3600 }); // 300
 * impersonationTokenTtl({ impersonationTokenTtl: 900 }, { accessTokenTtl: 600 }); // 600
 * ```
 */
export function impersonationTokenTtl(
  application: Pick<ApplicationRecord, 'impersonationTokenTtl'> | undefined,
  resource: Pick<ResourceRecord, 'accessTokenTtl'>,
): number {
  const wanted = application?.impersonationTokenTtl ?? DEFAULTS.impersonation.tokenTtl;
  return Math.min(wanted, resource.accessTokenTtl);
}
