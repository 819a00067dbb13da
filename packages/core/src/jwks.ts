/**
 * The remote JWKS cache behind step 2 of verification.
 *
 * - Keys found in a fresh cache are returned synchronously (the hot path makes no promise).
 * - Every fetch is shared: concurrent misses wait on the same request.
 * - An unknown `kid` causes at most one refetch per `cooldown`, so a flood of random kids cannot
 *   turn into a flood of requests to the issuer; it gets `invalid_token` (`key_not_found`).
 * - A failed fetch is not cached as a result, but later attempts back off exponentially
 *   (`backoffInitial` doubling up to `backoffMax`): no request waits on an endpoint known to be down.
 * - Known keys keep working while refreshes fail, for `staleIfError` past `cacheMaxAge`: once a refresh
 *   has failed, requests are answered from the kept keys at once while retries run in the background.
 *   Beyond that window, or when no key was ever loaded, verification fails closed with a 503
 *   ({@link KeysUnavailableError}); so does an unknown `kid` while the endpoint is failing.
 * - A response that is not a usable key set (too large, not JSON, no `keys` array, no usable key, a
 *   redirect) counts as a failed refresh: the previous keys stay in use.
 * - A key removed from the JWKS stops verifying at the first refresh after `cacheMaxAge`.
 *
 * @module
 */
import { type ErrorContext, InvalidTokenError, type KeySetError, KeysUnavailableError } from './errors.js';
import { explain } from './internal/explain.js';
import { FetchFailure, type FetchLimits, fetchJson } from './internal/fetch.js';
import { sameKey } from './internal/platform.js';
import { importVerificationKey, type KeyEntry, keyMatchesAlgorithm } from './jwk.js';
import type { JwksOptions } from './jwks-options.js';
import type { Algorithm } from './types.js';

/** Options of {@link RemoteKeySet}. */
export interface RemoteKeySetOptions {
  /**
   * The JWKS URL, or a function that finds it (discovery); called until it succeeds once. It receives
   * the key set's fetch limits, whose `fetch` counts towards {@link KeySetStats.fetches}.
   */
  readonly uri: URL | ((limits: FetchLimits) => Promise<URL>);
  readonly jwks: Readonly<Required<JwksOptions>>;
  readonly fetch: typeof fetch;
  readonly allowInsecureHttp: boolean;
  readonly context: ErrorContext;
  /** Called after a refresh changed the set of keys (the verifier drops its result cache). */
  readonly onChange?: () => void;
  /** The configured issuer, named in explanations. */
  readonly issuer: string;
  /** Told why keys cannot be had, at most once per distinct cause per `warningInterval` ms. */
  readonly onWarning?: ((warning: KeySetError) => void) | undefined;
  /** Milliseconds between two warnings of the same cause. */
  readonly warningInterval: number;
  /** Told of every HTTP request for keys and every failed refresh (telemetry); absent when off. */
  readonly observer?: KeySetObserver | undefined;
}

/**
 * What a key set reports as it works (the verifier's metrics).
 *
 * @example
 * ```ts
 * const observer: KeySetObserver = { fetched: () => fetches++, failed: (error) => failures.push(error.code) };
 * ```
 */
export interface KeySetObserver {
  /** An HTTP request for keys (discovery or JWKS) was sent. */
  fetched(): void;
  /** A refresh failed, for the reason explained. */
  failed(error: KeySetError): void;
}

/** Counters for observability and tests. */
export interface KeySetStats {
  /** Requests sent (discovery included when the discovery function uses the limits it is given). */
  readonly fetches: number;
  /** Failed refreshes since the process started. */
  readonly failures: number;
  /** Keys currently usable. */
  readonly keys: number;
  /** When keys were last loaded (ms since epoch), or `undefined`. */
  readonly loadedAt: number | undefined;
}

/**
 * What a verifier's key set offers (a {@link RemoteKeySet} behind it), as an interface: the public
 * types (`IssuerState.keys`, so `Verifier`) then hold no class with private members, and the types of
 * core's ES module and CommonJS builds are interchangeable — one project may import core, or an
 * adapter that names them in a declaration merge (Fastify), from both `.mts` and `.cts` files.
 *
 * @example
 * ```ts
 * const keys: KeySet | undefined = verifier.issuerState('https://id.example.com/oidc')?.keys;
 * console.log(keys?.stats.keys, keys?.lastError?.message);
 * ```
 */
export interface KeySet {
  /** Counters: fetches made, failures, keys held. */
  readonly stats: KeySetStats;
  /** When the loaded keys stop being fresh (ms since epoch); `-Infinity` before the first load. */
  readonly freshUntil: number;
  /** Why the last refresh failed, when it did. */
  readonly lastError: KeySetError | undefined;
  /**
   * Synchronous lookup in a fresh cache. Returns the candidate keys, or `undefined` when the async
   * {@link KeySet.resolve} must decide (cache empty or stale, or no matching key).
   */
  select(kid: string | undefined, alg: Algorithm): readonly KeyEntry[] | undefined;
  /** Candidate keys for a token header, refreshing within the cache's limits. */
  resolve(kid: string | undefined, alg: Algorithm): Promise<readonly KeyEntry[]>;
  /** Fetch the key set now (shared with any fetch in flight). Rejects with {@link KeysUnavailableError}. */
  refresh(): Promise<void>;
}

const NO_KEYS: readonly KeyEntry[] = Object.freeze([]);

/**
 * A cached, rate-limited view of one remote JWKS.
 *
 * @example
 * ```ts
 * const keys = new RemoteKeySet({ uri: new URL('https://id.example.com/jwks'), jwks: resolved.jwks, ... });
 * const candidates = keys.select('kid-1', 'ES256') ?? (await keys.resolve('kid-1', 'ES256'));
 * ```
 */
export class RemoteKeySet implements KeySet {
  readonly #options: RemoteKeySetOptions;
  readonly #limits: FetchLimits;
  #uri: URL | undefined;
  #entries: readonly KeyEntry[] = NO_KEYS;
  #byKid = new Map<string, KeyEntry[]>();
  #loadedAt = Number.NEGATIVE_INFINITY;
  #lastAttemptAt = Number.NEGATIVE_INFINITY;
  #retryAt = 0;
  #failures = 0;
  #totalFailures = 0;
  #lastFailed = false;
  #fetches = 0;
  #pending: Promise<void> | undefined;
  #lastError: KeySetError | undefined;
  /** When each cause (code + URL) was last reported. */
  readonly #warned = new Map<string, number>();

  constructor(options: RemoteKeySetOptions) {
    this.#options = options;
    this.#limits = {
      fetch: (input, init) => {
        this.#fetches++;
        options.observer?.fetched();
        return options.fetch(input, init);
      },
      timeout: options.jwks.timeout,
      maxResponseBytes: options.jwks.maxResponseBytes,
      allowInsecureHttp: options.allowInsecureHttp,
    };
    if (options.uri instanceof URL) this.#uri = options.uri;
  }

  /** Counters: fetches made, failures, keys held. */
  get stats(): KeySetStats {
    return {
      fetches: this.#fetches,
      failures: this.#totalFailures,
      keys: this.#entries.length,
      loadedAt: Number.isFinite(this.#loadedAt) ? this.#loadedAt : undefined,
    };
  }

  /**
   * Synchronous lookup in a fresh cache. Returns the candidate keys, or `undefined` when the async
   * {@link RemoteKeySet.resolve} must decide (cache empty or stale, or no matching key).
   */
  select(kid: string | undefined, alg: Algorithm): readonly KeyEntry[] | undefined {
    if (Date.now() - this.#loadedAt >= this.#options.jwks.cacheMaxAge) return undefined;
    const found = this.#match(kid, alg);
    return found.length > 0 ? found : undefined;
  }

  /** When the loaded keys stop being fresh (ms since epoch); `-Infinity` before the first load. */
  get freshUntil(): number {
    return this.#loadedAt + this.#options.jwks.cacheMaxAge;
  }

  /** Candidate keys for a token header, refreshing within the limits above. */
  async resolve(kid: string | undefined, alg: Algorithm): Promise<readonly KeyEntry[]> {
    const { cacheMaxAge, cooldown, staleIfError } = this.#options.jwks;
    // Wait for a fetch in flight (cold start, rotation), unless the endpoint is known to be failing.
    if (this.#pending !== undefined && !this.#servingStale(Date.now())) await this.#pending.catch(() => {});

    let now = Date.now();
    if (now - this.#loadedAt >= cacheMaxAge) {
      if (this.#servingStale(now)) {
        // The last refresh failed: answer from the kept keys now and retry in the background (the
        // retry itself honours the backoff), so no request waits on an endpoint known to be down.
        this.#refresh().catch(() => {});
      } else {
        try {
          await this.#refresh();
        } catch (error) {
          // Keys that were valid a little while ago keep working through an outage, for a bounded time.
          if (Date.now() - this.#loadedAt >= cacheMaxAge + staleIfError) throw error;
        }
      }
      now = Date.now();
    }

    let found = this.#match(kid, alg);
    if (found.length > 0) return found;

    // Unknown kid while the endpoint fails: it may be a rotated key, which cannot be checked now.
    if (this.#lastFailed && (this.#pending !== undefined || now - this.#lastAttemptAt < cooldown)) {
      throw this.#unavailable();
    }
    // Unknown kid: maybe the issuer rotated. Refetch at most once per cooldown.
    if (now - this.#lastAttemptAt >= cooldown) {
      await this.#refresh();
      found = this.#match(kid, alg);
      if (found.length > 0) return found;
    }
    throw new InvalidTokenError('key_not_found', this.#options.context);
  }

  /** Fetch the key set now (shared with any fetch in flight). Rejects with {@link KeysUnavailableError}. */
  refresh(): Promise<void> {
    return this.#refresh();
  }

  /** Why the last refresh failed, when it did. */
  get lastError(): KeySetError | undefined {
    return this.#lastError;
  }

  #warn(error: KeySetError): void {
    const onWarning = this.#options.onWarning;
    if (onWarning === undefined) return;
    const cause = `${error.code} ${error.url ?? ''}`;
    const now = Date.now();
    const last = this.#warned.get(cause);
    if (last !== undefined && now - last < this.#options.warningInterval) return;
    if (this.#warned.size >= 100) this.#warned.clear();
    this.#warned.set(cause, now);
    try {
      onWarning(error);
    } catch {
      // A failing logger must not turn a 503 into something else.
    }
  }

  #match(kid: string | undefined, alg: Algorithm): readonly KeyEntry[] {
    const pool = kid === undefined ? this.#entries : this.#byKid.get(kid);
    if (pool === undefined) return NO_KEYS;
    // The common case, one key per kid: hand out the pool itself rather than a new array.
    if (pool.length === 1) return keyMatchesAlgorithm(pool[0]!, alg) ? pool : NO_KEYS;
    let out: KeyEntry[] | undefined;
    for (const entry of pool) {
      if (keyMatchesAlgorithm(entry, alg)) (out ??= []).push(entry);
    }
    return out ?? NO_KEYS;
  }

  /** Whether the last refresh failed and the kept keys, though stale, are still within `staleIfError`. */
  #servingStale(now: number): boolean {
    const age = now - this.#loadedAt;
    const { cacheMaxAge, staleIfError } = this.#options.jwks;
    return this.#lastFailed && age >= cacheMaxAge && age < cacheMaxAge + staleIfError;
  }

  #unavailable(cause: unknown = this.#lastError): KeysUnavailableError {
    const wait = Math.max(this.#retryAt - Date.now(), 1000) / 1000;
    return new KeysUnavailableError(wait, this.#options.context, { cause });
  }

  #refresh(): Promise<void> {
    if (this.#pending !== undefined) return this.#pending;
    if (Date.now() < this.#retryAt) return Promise.reject(this.#unavailable());
    this.#lastAttemptAt = Date.now();
    const pending = this.#load().then(
      () => {
        this.#pending = undefined;
      },
      (error: unknown) => {
        this.#pending = undefined;
        const { backoffInitial, backoffMax } = this.#options.jwks;
        this.#failures++;
        this.#totalFailures++;
        this.#lastFailed = true;
        this.#retryAt = Date.now() + Math.min(backoffInitial * 2 ** (this.#failures - 1), backoffMax);
        const explained = explain(error, this.#options.issuer);
        this.#lastError = explained;
        this.#options.observer?.failed(explained);
        this.#warn(explained);
        throw this.#unavailable(explained);
      },
    );
    this.#pending = pending;
    return pending;
  }

  async #load(): Promise<void> {
    if (this.#uri === undefined) {
      const uri = this.#options.uri;
      this.#uri = uri instanceof URL ? uri : await uri(this.#limits);
    }
    const doc = await fetchJson(this.#uri, this.#limits, 'application/jwk-set+json, application/json');
    if (doc === null || typeof doc !== 'object' || !Array.isArray((doc as { keys?: unknown }).keys)) {
      throw new FetchFailure('jwks_invalid', 'the JWKS has no "keys" array', this.#uri);
    }
    const raw = (doc as { keys: unknown[] }).keys.slice(0, this.#options.jwks.maxKeys);
    const entries = (await Promise.all(raw.map(importVerificationKey))).filter(
      (e): e is KeyEntry => e !== undefined,
    );
    // An empty or unusable set is a broken deployment, not a revocation of every key: keep the old ones.
    if (entries.length === 0)
      throw new FetchFailure('no_usable_key', 'the JWKS holds no usable verification key', this.#uri);

    const byKid = new Map<string, KeyEntry[]>();
    for (const entry of entries) {
      if (entry.kid === undefined) continue;
      const list = byKid.get(entry.kid);
      if (list === undefined) byKid.set(entry.kid, [entry]);
      else list.push(entry);
    }
    const changed = !sameKeys(this.#entries, entries);
    this.#entries = Object.freeze(entries);
    this.#byKid = byKid;
    this.#loadedAt = Date.now();
    this.#failures = 0;
    this.#retryAt = 0;
    this.#lastFailed = false;
    this.#lastError = undefined;
    if (changed) this.#options.onChange?.();
  }
}

function sameKeys(a: readonly KeyEntry[], b: readonly KeyEntry[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((entry, i) => {
    const other = b[i]!;
    return entry.kid === other.kid && entry.alg === other.alg && sameKey(entry.key, other.key);
  });
}
