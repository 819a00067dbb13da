/**
 * The two records the client keeps in its storage, as JSON under `gatehouse:{clientId}:{name}`:
 *
 * - `sign-in`: the pending sign-in (state, PKCE verifier, nonce, redirect URI), written by
 *   `signIn()` and removed by the first `handleSignInCallback()`;
 * - `session`: the refresh token, the raw ID token and its validated claims.
 *
 * A record that does not parse is treated as absent (and removed), never trusted in part.
 *
 * @module
 */
import type { ClientStorage } from '../storage.js';
import type { IdTokenClaims } from '../types.js';

/** What `signIn()` keeps until the callback. */
export interface PendingSignIn {
  readonly state: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly redirectUri: string;
}

/** The signed-in session. */
export interface SessionRecord {
  /** Absent when the issuer granted no refresh token. */
  readonly refreshToken: string | undefined;
  readonly idToken: string;
  readonly claims: IdTokenClaims;
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function parsePending(value: unknown): PendingSignIn | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (
    !isString(record.state) ||
    !isString(record.codeVerifier) ||
    !isString(record.nonce) ||
    !isString(record.redirectUri)
  )
    return undefined;
  return {
    state: record.state,
    codeVerifier: record.codeVerifier,
    nonce: record.nonce,
    redirectUri: record.redirectUri,
  };
}

function parseSession(value: unknown): SessionRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (record.refreshToken !== undefined && !isString(record.refreshToken)) return undefined;
  if (!isString(record.idToken)) return undefined;
  const claims = record.claims as Record<string, unknown> | null | undefined;
  if (claims === null || typeof claims !== 'object' || !isString(claims.sub) || !isString(claims.iss))
    return undefined;
  return {
    refreshToken: record.refreshToken as string | undefined,
    idToken: record.idToken,
    claims: claims as unknown as IdTokenClaims,
  };
}

/**
 * Typed access to the client's records in a {@link ClientStorage}.
 *
 * @example
 * ```ts
 * const records = new Records(createMemoryStorage(), 'gatehouse:spa:');
 * await records.setSession({ refreshToken: 'rt', idToken: 'jwt', claims });
 * ```
 */
export class Records {
  readonly #storage: ClientStorage;
  readonly #prefix: string;

  constructor(storage: ClientStorage, prefix: string) {
    this.#storage = storage;
    this.#prefix = prefix;
  }

  async #read<T>(name: string, parse: (value: unknown) => T | undefined): Promise<T | undefined> {
    const key = this.#prefix + name;
    const raw = await this.#storage.getItem(key);
    if (raw === null || raw === undefined) return undefined;
    let parsed: T | undefined;
    try {
      parsed = parse(JSON.parse(raw));
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) await this.#storage.removeItem(key);
    return parsed;
  }

  async #write(name: string, value: unknown): Promise<void> {
    await this.#storage.setItem(this.#prefix + name, JSON.stringify(value));
  }

  /** The pending sign-in, if any. */
  getPendingSignIn(): Promise<PendingSignIn | undefined> {
    return this.#read('sign-in', parsePending);
  }

  /** Replace the pending sign-in. */
  setPendingSignIn(value: PendingSignIn): Promise<void> {
    return this.#write('sign-in', value);
  }

  /** Read and remove the pending sign-in: it can complete only once. */
  async takePendingSignIn(): Promise<PendingSignIn | undefined> {
    const pending = await this.getPendingSignIn();
    await this.#storage.removeItem(`${this.#prefix}sign-in`);
    return pending;
  }

  /** The session, if any. */
  getSession(): Promise<SessionRecord | undefined> {
    return this.#read('session', parseSession);
  }

  /** Replace the session. */
  setSession(value: SessionRecord): Promise<void> {
    return this.#write('session', value);
  }

  /** Forget the session. */
  async clearSession(): Promise<void> {
    await this.#storage.removeItem(`${this.#prefix}session`);
  }
}
