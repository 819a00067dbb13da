/**
 * Reading an introspection response (RFC 7662 §2.2): plain JSON, or a signed JWT (RFC 9701) verified
 * with the issuer's keys; then turning an active answer into the claim set the verifier checks like a
 * JWT's. Anything that is not a well-formed answer throws {@link IntrospectionFailure}: the endpoint,
 * not the client, is at fault, so the request is answered 503.
 *
 * @module
 */
import { type ErrorContext, UnavailableError } from '../errors.js';
import { verifySignature } from '../internal/platform.js';
import type { KeySet } from '../jwks.js';
import { JwsParser } from '../jws.js';
import type { Algorithm } from '../types.js';

/**
 * The media type of a JWT introspection response (RFC 9701 §4).
 *
 * @example
 * ```ts
 * if (type === JWT_RESPONSE_TYPE) answer = await verifyJwtResponse(text, check);
 * ```
 */
export const JWT_RESPONSE_TYPE = 'application/token-introspection+jwt';

/**
 * Why an introspection answer cannot be used; its message names no token, secret or claim value.
 *
 * @example
 * ```ts
 * throw new IntrospectionFailure('the introspection response is not JSON');
 * ```
 */
export class IntrospectionFailure extends Error {
  override readonly name = 'IntrospectionFailure';
}

/**
 * What is needed to check a JWT introspection response.
 *
 * @example
 * ```ts
 * const check: JwtResponseCheck = { issuer, clientId: 'orders-api', keys, algorithms, context };
 * ```
 */
export interface JwtResponseCheck {
  readonly issuer: string;
  readonly clientId: string;
  /** The issuer's key set; `undefined` when there is no single issuer (a JWT answer is then refused). */
  readonly keys: KeySet | undefined;
  readonly algorithms: ReadonlySet<Algorithm>;
  readonly context: ErrorContext;
}

/** The access-token types an active answer may name (RFC 7662 `token_type`, RFC 9449 `DPoP`), lower case. */
const ACCESS_TOKEN_TYPES = new Set([
  'bearer',
  'dpop',
  'n_a',
  'urn:ietf:params:oauth:token-type:access_token',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The answer's members, from the body of a 200 response of media type `type`. Throws
 * {@link IntrospectionFailure} for anything but a JSON object with a boolean `active`.
 *
 * @example
 * ```ts
 * const answer = await readAnswer(text, 'application/json', check); // { active: true, sub: '…', … }
 * ```
 */
export async function readAnswer(
  text: string,
  type: string,
  check: JwtResponseCheck,
): Promise<Record<string, unknown>> {
  let answer: unknown;
  if (type === JWT_RESPONSE_TYPE) answer = await verifyJwtResponse(text, check);
  else {
    try {
      answer = JSON.parse(text);
    } catch {
      throw new IntrospectionFailure('the introspection response is not JSON');
    }
  }
  if (!isObject(answer) || typeof answer.active !== 'boolean')
    throw new IntrospectionFailure('the introspection response has no boolean "active" member');
  return answer;
}

/**
 * RFC 9701 §5: a JWT of `typ` `token-introspection+jwt`, signed by a key of the issuer's JWKS, issued
 * by the issuer to this resource server (`aud` = its client id), carrying the answer in
 * `token_introspection`.
 */
async function verifyJwtResponse(text: string, check: JwtResponseCheck): Promise<unknown> {
  let jws: ReturnType<JwsParser['parse']>;
  try {
    jws = new JwsParser(check.algorithms, check.context).parse(text.trim());
  } catch {
    throw new IntrospectionFailure('the JWT introspection response is not a well-formed JWS');
  }
  const { alg, kid, typ } = jws.header;
  const bare = typ?.toLowerCase().replace(/^application\//, '');
  if (bare !== 'token-introspection+jwt')
    throw new IntrospectionFailure('the JWT introspection response has the wrong typ');
  const { keys } = check;
  if (keys === undefined)
    throw new IntrospectionFailure('a JWT introspection response needs a single configured issuer');
  let candidates: Awaited<ReturnType<KeySet['resolve']>>;
  try {
    candidates = keys.select(kid, alg) ?? (await keys.resolve(kid, alg));
  } catch (error) {
    // An outage of the key set stays what it is (503 `jwks_unavailable`); anything else is about the answer.
    if (error instanceof UnavailableError) throw error;
    throw new IntrospectionFailure('no key of the issuer matches the JWT introspection response');
  }
  let signed = false;
  for (const candidate of candidates) {
    if (await verifySignature(alg, candidate.key, jws.signingInput, jws.signature)) {
      signed = true;
      break;
    }
  }
  if (!signed) throw new IntrospectionFailure('the JWT introspection response signature is invalid');
  const { iss, aud, iat, token_introspection: answer } = jws.payload;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (iss !== check.issuer || !audiences.includes(check.clientId) || typeof iat !== 'number')
    throw new IntrospectionFailure('the JWT introspection response is not from the issuer to this client');
  return answer;
}

/**
 * The claim set of an active answer, for the verifier's usual `iss`/`aud`/`exp` checks: `iss`
 * defaults to `issuer` (the server whose endpoint answered) when the answer omits it. Returns
 * `undefined` when the answer is about something other than an access token (a refresh token), or a
 * DPoP token without its key thumbprint: such a token is refused, never accepted as a bearer token.
 *
 * @example
 * ```ts
 * toClaims({ active: true, sub: 'u1', exp: 1767225600, token_type: 'Bearer' }, 'https://id.example.com/oidc');
 * // { active: true, sub: 'u1', exp: 1767225600, token_type: 'Bearer', iss: 'https://id.example.com/oidc' }
 * ```
 */
export function toClaims(
  answer: Record<string, unknown>,
  issuer: string | undefined,
): Record<string, unknown> | undefined {
  const type = answer.token_type;
  if (type !== undefined) {
    if (typeof type !== 'string' || !ACCESS_TOKEN_TYPES.has(type.toLowerCase())) return undefined;
    const cnf = answer.cnf;
    if (type.toLowerCase() === 'dpop' && !(isObject(cnf) && cnf.jkt !== undefined)) return undefined;
  }
  return answer.iss === undefined && issuer !== undefined ? { ...answer, iss: issuer } : answer;
}
