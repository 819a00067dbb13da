/**
 * The hand-written baseline: what a team wires by hand with jose. createRemoteJWKSet + jwtVerify with
 * issuer, audience, an algorithm allow-list and required exp + sub, then a scope check. Each framework
 * wraps it in its own middleware (apps/*.mjs).
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';

class HttpError extends Error {
  constructor(status, code) {
    super(code);
    this.status = status;
    this.code = code;
    this.headers = { 'www-authenticate': code ? `Bearer error="${code}"` : 'Bearer' };
  }
}

/**
 * @param {{ issuer: string, audience: string, jwksUri: string, alg: string, scope: string }} options
 * @returns {(authorization: string | undefined) => Promise<import('jose').JWTPayload>}
 */
export function createJoseGuard({ issuer, audience, jwksUri, alg, scope }) {
  const jwks = createRemoteJWKSet(new URL(jwksUri));
  const options = { issuer, audience, algorithms: [alg], requiredClaims: ['exp', 'sub'] };
  return async function verify(authorization) {
    const match = typeof authorization === 'string' ? /^Bearer ([^\s]+)$/i.exec(authorization) : null;
    if (match === null) throw new HttpError(401, undefined);
    let payload;
    try {
      ({ payload } = await jwtVerify(match[1], jwks, options));
    } catch {
      throw new HttpError(401, 'invalid_token');
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (!scopes.includes(scope)) throw new HttpError(403, 'insufficient_scope');
    return payload;
  };
}
