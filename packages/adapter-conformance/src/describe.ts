/**
 * What every route of the suite answers and which scopes and roles it requires, free of any Node built-in so the
 * apps that run on Bun, Deno and workerd (fetch-app.ts, hono-app.ts) share it with the Node ones.
 *
 * @module
 */
import type { AuthInfo, Confirmation } from '@gatehouse/core';

/** Scopes the scoped routes require. */
export const SCOPES = Object.freeze({
  one: 'read:users',
  pair: Object.freeze(['read:users', 'write:users']),
});

/** Roles the role routes require (`/roles/*`). */
export const ROLES = Object.freeze({
  one: 'admin',
  pair: Object.freeze(['admin', 'auditor']),
});

/**
 * The JSON body every route answers with; `bound` shows the sender binding the verifier checked, and
 * `roles` (only for a token that has some) the roles `AuthInfo` exposes.
 */
export function describeAuth(auth: AuthInfo | undefined): Record<string, unknown> {
  if (auth === undefined) return { anonymous: true };
  return {
    subject: auth.subject ?? null,
    scopes: auth.scopes,
    delegated: auth.delegated,
    actor: auth.actor?.sub ?? null,
    bound: binding(auth.confirmation),
    ...(auth.roles.length === 0 ? {} : { roles: auth.roles }),
  };
}

/** How the verified token was bound to its sender: `dpop`, `mtls`, `dpop+mtls`, or `null` (a bearer token). */
function binding(cnf: Confirmation | undefined): string | null {
  const kinds = [];
  if (cnf?.jkt !== undefined) kinds.push('dpop');
  if (cnf?.['x5t#S256'] !== undefined) kinds.push('mtls');
  return kinds.length === 0 ? null : kinds.join('+');
}

/** The `acr` values of the suite's two sign-in levels (those of the reference issuer). */
export const ACR = Object.freeze({
  password: 'urn:gatehouse:acr:password',
  mfa: 'urn:gatehouse:acr:mfa',
});

/**
 * What `GET /step-up` requires besides {@link SCOPES}`.one` (RFC 9470): a second factor, within 30
 * minutes. The rows' tokens are minted once per file with `auth_time` a minute back, and a file of rows
 * can run for minutes on a loaded machine: the window leaves them recent for the whole file (with 5
 * minutes, a 257 s run of the remote runtimes' file saw a "recent" sign-in turn old).
 */
export const STEP_UP = Object.freeze({ acrValues: Object.freeze([ACR.mfa]), maxAge: 1800 });
