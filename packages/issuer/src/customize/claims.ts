/**
 * Applies `getCustomJwtClaims` to every JWT access token (authorization code, refresh, client
 * credentials, token exchange): builds the `context` (user with roles but never the password hash,
 * application without its secret, grant with the subject token's context), runs the function through
 * the worker pool, and merges the result into the payload, skipping {@link RESERVED_CLAIMS}: a
 * reserved claim in the result fails closed — it is dropped, the token keeps the issuer's value (or
 * none), and the names dropped are logged (`custom_claims.reserved`, never their values).
 *
 * Results are parsed with every `__proto__` key dropped, and merged by plain assignment of own keys
 * other than `__proto__`, `constructor` and `prototype`, so a result can never change a prototype
 * (catalogue B26). `api.denyAccess(message)` answers `400 access_denied`. A throw, a timeout, a crash, a
 * non-object, a value JSON cannot hold (cycle, BigInt) or a result over the size cap fails closed with
 * `500 server_error` and a fixed description (`onError: 'deny'`, the default), or issues the token
 * without custom claims (`onError: 'issue-without-claims'`). Only the failure category is logged.
 *
 * @module
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Logger } from 'pino';
import type { CustomClaimsOnError } from '../config/constants.js';
import { CustomClaimsError, type CustomClaimsFailure } from '../errors.js';
import { getExchangeState } from '../grants/exchange-state.js';
import type { Store } from '../storage/store.js';
import type { ClaimsRunner } from './runner.js';
import { type CustomClaimsContext, RESERVED_CLAIMS } from './types.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** {@link RESERVED_CLAIMS} for lookups; module-private, so nothing can add to or remove from it. */
const RESERVED = new Set(RESERVED_CLAIMS);

/** Adds custom claims to a JWT payload in place. */
export interface CustomClaims {
  apply(
    ctx: KoaContextWithOIDC | undefined,
    token: { readonly accountId?: unknown; readonly clientId?: unknown },
    payload: Record<string, unknown>,
  ): Promise<void>;
}

/** Options of {@link createCustomClaims}. */
export interface CustomClaimsOptions {
  readonly runner: ClaimsRunner;
  readonly store: Store;
  readonly onError: CustomClaimsOnError;
  readonly log: Logger;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A description safe for `error_description` (RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E). */
function safeDescription(message: string): string {
  const clean = message.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '').slice(0, 200);
  return clean.length > 0 ? clean : 'access denied';
}

async function buildContext(
  store: Store,
  ctx: KoaContextWithOIDC | undefined,
  token: { readonly accountId?: unknown; readonly clientId?: unknown },
): Promise<CustomClaimsContext> {
  const user = typeof token.accountId === 'string' ? await store.users.get(token.accountId) : undefined;
  const roles = user === undefined ? [] : await store.roles.listFor({ userId: user.id });
  const app = typeof token.clientId === 'string' ? await store.applications.get(token.clientId) : undefined;
  const exchange = getExchangeState(ctx);
  const grantType = ctx?.oidc?.params?.grant_type;
  return {
    user:
      user === undefined
        ? null
        : {
            id: user.id,
            username: user.username,
            email: user.email,
            suspended: user.suspended,
            customData: user.customData,
            roles: roles.map((role) => ({ id: role.id, name: role.name, description: role.description })),
            createdAt: iso(user.createdAt),
            updatedAt: iso(user.updatedAt),
          },
    application:
      app === undefined
        ? null
        : {
            id: app.id,
            name: app.name,
            type: app.type,
            firstParty: app.firstParty,
            tokenExchangeEnabled: app.tokenExchangeEnabled,
            customData: app.customData,
          },
    grant: {
      type: typeof grantType === 'string' ? grantType : 'unknown',
      ...(exchange === undefined
        ? {}
        : { subjectTokenType: exchange.subjectTokenType, subjectTokenContext: exchange.subjectTokenContext }),
    },
  };
}

/** Parse the worker's JSON, dropping `__proto__` keys at every level; `undefined` when not an object. */
function parseClaims(json: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json, (key, entry) => (key === '__proto__' ? undefined : entry));
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Build the claims applier.
 *
 * @example
 * ```ts
 * const customClaims = createCustomClaims({ runner, store, onError: 'deny', log });
 * await customClaims.apply(ctx, token, jwt.payload);
 * ```
 */
export function createCustomClaims(options: CustomClaimsOptions): CustomClaims {
  const { runner, store, log } = options;
  const failed = (failure: CustomClaimsFailure): void => {
    log.warn(
      { event: 'custom_claims.failed', failure, policy: options.onError },
      'custom claims function failed',
    );
    if (options.onError === 'deny') throw new CustomClaimsError(failure);
  };
  return {
    async apply(ctx, token, payload) {
      const context = await buildContext(store, ctx, token);
      const outcome = await runner.run({ token: { ...payload }, context });
      if (outcome.kind === 'denied') {
        log.info({ event: 'custom_claims.denied' }, 'custom claims function denied the token');
        throw new errors.AccessDenied(safeDescription(outcome.message));
      }
      if (outcome.kind === 'failed') return failed(outcome.failure);
      if (Buffer.byteLength(outcome.json) > runner.maxResultBytes) return failed('too_large');
      const claims = parseClaims(outcome.json);
      if (claims === undefined) return failed('not_an_object');
      const dropped: string[] = [];
      for (const [name, value] of Object.entries(claims)) {
        if (RESERVED.has(name)) dropped.push(name);
        else if (!FORBIDDEN_KEYS.has(name)) payload[name] = value;
      }
      if (dropped.length > 0)
        log.warn(
          { event: 'custom_claims.reserved', claims: dropped },
          'custom claims function returned reserved claims; they were ignored',
        );
    },
  };
}
