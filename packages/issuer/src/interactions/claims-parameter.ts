/**
 * The OpenID Connect `claims` request parameter (Core §5.5), which the issuer honours for the claims
 * about the sign-in only: `{"id_token":{"acr":…,"auth_time":…}}`.
 *
 * - `acr` may name a `value` or `values` (its levels, in order of preference) and be `essential`
 *   (§5.5.1.1). An essential request that names a level the issuer offers is stepped up to it
 *   (step-up.ts); one that names none is refused at once with `unmet_authentication_requirements`
 *   (OpenID Connect Unmet Authentication Requirements 1.0): a sign-in could only end at a level the
 *   client said it cannot accept. Without `essential` the levels are a wish, like `acr_values`.
 * - Any other member (`userinfo`, or another claim in `id_token`) is refused with `invalid_request`:
 *   those claims follow the requested scopes, and a claim the consent page does not name is never
 *   granted by a side door.
 *
 * oidc-provider parses the parameter, rejects what is not JSON or not an object, and calls
 * {@link claimsParameterAssertion}'s function with the parsed value before any sign-in.
 *
 * @module
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

/**
 * The `acr` member of a `claims` parameter's `id_token`.
 *
 * @example
 * ```ts
 * const wanted: AcrClaimRequest = { essential: true, values: ['urn:gatehouse:acr:mfa'] };
 * ```
 */
export interface AcrClaimRequest {
  /** `"essential": true`: a level outside `values` must not be answered. */
  readonly essential: boolean;
  /** `value`, or `values`, in the request's order; empty when neither is given. */
  readonly values: readonly string[];
}

/** The claims the parameter may request, in `id_token`. */
const ALLOWED = new Set(['acr', 'auth_time']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Read the `acr` request of a `claims` parameter — the raw JSON text (as in `ctx.oidc.params` or an
 * interaction's `params`) or the parsed object; `undefined` when it asks for no `acr`. Nothing is
 * checked here beyond shapes: {@link claimsParameterAssertion} refuses a malformed request first.
 *
 * @example
 * ```ts
 * acrClaimRequest('{"id_token":{"acr":{"essential":true,"value":"urn:gatehouse:acr:mfa"}}}');
 * // { essential: true, values: ['urn:gatehouse:acr:mfa'] }
 * ```
 */
export function acrClaimRequest(claims: unknown): AcrClaimRequest | undefined {
  let parsed = claims;
  if (typeof claims === 'string') {
    try {
      parsed = JSON.parse(claims);
    } catch {
      return undefined;
    }
  }
  const idToken = isObject(parsed) ? parsed.id_token : undefined;
  if (!isObject(idToken) || !Object.hasOwn(idToken, 'acr')) return undefined;
  const acr = idToken.acr;
  if (!isObject(acr)) return { essential: false, values: [] };
  const listed = typeof acr.value === 'string' ? [acr.value] : Array.isArray(acr.values) ? acr.values : [];
  return {
    essential: acr.essential === true,
    values: listed.filter((value): value is string => typeof value === 'string'),
  };
}

const invalid = (description: string) => new errors.InvalidRequest(description);

/** Refuse a member of `id_token` that is neither `null` nor a well-formed claim request. */
function assertMember(name: string, request: unknown): void {
  if (request === null) return;
  if (!isObject(request)) throw invalid(`claims.id_token.${name} must be null or an object`);
  if (request.essential !== undefined && typeof request.essential !== 'boolean')
    throw invalid(`claims.id_token.${name}.essential must be a boolean`);
  if (request.value !== undefined && request.values !== undefined)
    throw invalid(`claims.id_token.${name} takes value or values, not both`);
  if (request.value !== undefined && typeof request.value !== 'string')
    throw invalid(`claims.id_token.${name}.value must be a string`);
  if (
    request.values !== undefined &&
    (!Array.isArray(request.values) || !request.values.every((value) => typeof value === 'string'))
  )
    throw invalid(`claims.id_token.${name}.values must be an array of strings`);
}

/**
 * The `features.claimsParameter.assertClaimsParameter` function: refuses a `claims` parameter asking
 * for anything but `acr` and `auth_time` in `id_token` (`invalid_request`), and an essential `acr`
 * none of whose levels is in `offered` (`unmet_authentication_requirements`).
 *
 * @example
 * ```ts
 * const features = {
 *   claimsParameter: { enabled: true, assertClaimsParameter: claimsParameterAssertion(SUPPORTED_ACR_VALUES) },
 * };
 * ```
 */
export function claimsParameterAssertion(
  offered: readonly string[],
): (ctx: KoaContextWithOIDC, claims: unknown, client: unknown) => void {
  return (_ctx, claims) => {
    if (!isObject(claims)) throw invalid('claims parameter should be a JSON object');
    for (const member of Object.keys(claims)) {
      if (member !== 'id_token')
        throw invalid(
          'the claims parameter may only request acr and auth_time in id_token; other claims follow the requested scopes',
        );
    }
    const idToken = claims.id_token;
    if (!isObject(idToken)) throw invalid('claims.id_token should be an object');
    for (const [name, request] of Object.entries(idToken)) {
      if (!ALLOWED.has(name))
        throw invalid(
          'the claims parameter may only request acr and auth_time in id_token; other claims follow the requested scopes',
        );
      assertMember(name, request);
    }
    const acr = acrClaimRequest(claims);
    if (acr?.essential === true && acr.values.length > 0 && !acr.values.some((v) => offered.includes(v)))
      throw new errors.UnmetAuthenticationRequirements(
        `none of the essential acr values can be met; this issuer offers ${offered.join(' ')}`,
      );
  };
}
