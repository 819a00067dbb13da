/**
 * The immutable {@link AuthInfo} built from a verified token.
 *
 * @module
 */
import type { CheckedClaims } from './claims.js';
import { hasRoles, NO_ROLES } from './roles.js';
import { hasScopes, parseScopes } from './scopes.js';
import type { AccessTokenClaims, Actor, AuthInfo, Confirmation } from './types.js';

class VerifiedToken implements AuthInfo {
  readonly token: string;
  readonly claims: AccessTokenClaims;
  readonly subject: string | undefined;
  readonly clientId: string | undefined;
  readonly issuer: string;
  readonly audience: readonly string[];
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly expiresAt: Date;
  readonly actor: Actor | undefined;
  readonly delegated: boolean;
  readonly confirmation: Confirmation | undefined;

  constructor(token: string, payload: Record<string, unknown>, checked: CheckedClaims) {
    this.token = token;
    this.claims = Object.freeze(payload) as AccessTokenClaims;
    this.subject = payload.sub as string | undefined;
    this.clientId = (payload.client_id ?? payload.azp) as string | undefined;
    this.issuer = checked.issuer;
    this.audience = Object.isFrozen(checked.audience)
      ? checked.audience
      : Object.freeze([...checked.audience]);
    this.scopes = parseScopes(payload);
    this.roles = checked.roles ?? NO_ROLES;
    this.expiresAt = new Date(checked.exp * 1000);
    this.actor = checked.actor;
    this.delegated = checked.actor !== undefined;
    this.confirmation = checked.confirmation;
    Object.freeze(this);
  }

  hasScope(...scopes: string[]): boolean {
    return hasScopes(this.scopes, scopes, 'all');
  }

  hasAnyScope(...scopes: string[]): boolean {
    return hasScopes(this.scopes, scopes, 'any');
  }

  hasRole(...roles: string[]): boolean {
    return hasRoles(this.roles, roles, 'all');
  }

  hasAnyRole(...roles: string[]): boolean {
    return hasRoles(this.roles, roles, 'any');
  }

  /** Keep the raw token out of `JSON.stringify` and `console.log` output. */
  toJSON(): Omit<AuthInfo, 'token' | 'hasScope' | 'hasAnyScope' | 'hasRole' | 'hasAnyRole'> {
    const { token: _token, ...rest } = this;
    return rest;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): object {
    return { ...this.toJSON(), token: '[redacted]' };
  }
}

/** Build the frozen {@link AuthInfo} for a verified token. */
export function createAuthInfo(
  token: string,
  payload: Record<string, unknown>,
  checked: CheckedClaims,
): AuthInfo {
  return new VerifiedToken(token, payload, checked);
}
