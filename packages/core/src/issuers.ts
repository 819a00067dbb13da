/**
 * The issuers a verifier trusts, and the state it holds for each ({@link IssuerState}: the options its
 * tokens' claims are checked against, its key set, its metadata once discovered).
 *
 * With several issuers, a token's unverified `iss` is used before the signature for one thing only: to
 * pick the key set of an issuer on the allow-list. An `iss` outside it fails at once (`invalid_token`,
 * reason `issuer`) with no fetch, and is never echoed. After the signature, `iss` is compared again
 * with the issuer whose keys verified it (claims.ts), so one issuer's keys never verify another's
 * tokens. With one issuer there is nothing to pick: `iss` is only read after the signature (A45).
 *
 * With an `issuer` function (tenants), its answers and the key sets of trusted issuers are held in
 * two bounded least-recently-used caches (lru-cache, already core's result cache): random `iss` values
 * cannot grow memory. The function is called at most once per issuer at a time, and a failure or a
 * timeout answers that request 503 ({@link IssuerUnavailableError}), never 401.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from './defaults.js';
import { discoverMetadata } from './discovery.js';
import { type ErrorContext, InvalidTokenError, IssuerUnavailableError } from './errors.js';
import { isAllowedUrl } from './internal/option-values.js';
import type { IssuerResolver, ResolvedIssuer } from './issuer-options.js';
import { type KeySet, type KeySetObserver, type KeySetStats, RemoteKeySet } from './jwks.js';
import type { ResolvedOptions } from './options.js';
import type { Algorithm } from './types.js';

/**
 * What a verifier holds for one trusted issuer: an interface, so that the public types hold no class
 * with private members and those of core's ES module and CommonJS builds are interchangeable.
 *
 * @example
 * ```ts
 * const state = verifier.issuerState('https://id.example.com/oidc');
 * state?.keys.stats.keys; // keys held
 * state?.metadata?.introspection_endpoint; // once discovery has run
 * ```
 */
export interface IssuerState {
  /** The issuer identifier. */
  readonly issuer: string;
  /** Algorithms accepted for its tokens. */
  readonly algorithms: ReadonlySet<Algorithm>;
  /** The verifier's options with this issuer's `iss` and audiences: what `checkClaims` checks. */
  readonly options: ResolvedOptions;
  /** Its key set (shared with the other issuers that use the same explicit `jwksUri`). */
  readonly keys: KeySet;
  /** The issuer's metadata document, once discovery has fetched it (`undefined` with a `jwksUri`). */
  readonly metadata: Readonly<Record<string, unknown>> | undefined;
}

/** The {@link IssuerState} a registry holds, which also runs discovery for its key set. */
class TrustedIssuer implements IssuerState {
  readonly issuer: string;
  readonly algorithms: ReadonlySet<Algorithm>;
  readonly options: ResolvedOptions;
  readonly keys: RemoteKeySet;
  #metadata: Readonly<Record<string, unknown>> | undefined;

  constructor(config: ResolvedIssuer, base: ResolvedOptions, keys: (state: TrustedIssuer) => RemoteKeySet) {
    this.issuer = config.issuer;
    this.algorithms = config.algorithms;
    this.options = Object.freeze({
      ...base,
      issuers: Object.freeze([config.issuer]),
      audiences: config.audiences,
    });
    this.keys = keys(this);
  }

  /** The issuer's metadata document, once discovery has fetched it (`undefined` with a `jwksUri`). */
  get metadata(): Readonly<Record<string, unknown>> | undefined {
    return this.#metadata;
  }

  /** Discover the JWKS URL from the metadata, keeping the document. */
  discover(limits: Parameters<typeof discoverMetadata>[1], allowedOrigins: readonly string[]): Promise<URL> {
    return discoverMetadata(this.issuer, limits, allowedOrigins).then((found) => {
      this.#metadata = found.metadata;
      return found.jwksUri;
    });
  }
}

/** Key-cache counters of a verifier, over every key set it holds. */
export interface KeyStats extends KeySetStats {
  /** Key sets held: one per configured issuer or shared `jwksUri`, or per trusted tenant (bounded). */
  readonly keySets: number;
}

/** Whether `iss` can name an issuer whose metadata may be fetched: an allowed URL, no query or fragment. */
function isIssuerUrl(iss: string, allowInsecureHttp: boolean): boolean {
  const url = URL.parse(iss);
  return (
    url !== null &&
    isAllowedUrl(url, allowInsecureHttp) &&
    url.search === '' &&
    !iss.includes('#') &&
    url.username === '' &&
    url.password === ''
  );
}

/**
 * The issuers of one verifier: a fixed list, or the answers of an `issuer` function.
 *
 * @example
 * ```ts
 * const registry = new IssuerRegistry(resolved, context, () => cache.clear());
 * const state = registry.select(jws.payload.iss);
 * ```
 */
export class IssuerRegistry {
  /** Every algorithm some issuer accepts: the parser's allow-list. */
  readonly algorithms: ReadonlySet<Algorithm>;
  readonly #options: ResolvedOptions;
  readonly #context: ErrorContext;
  readonly #onChange: () => void;
  readonly #fixed = new Map<string, TrustedIssuer>();
  /** The issuer, when exactly one is listed. */
  readonly #only: TrustedIssuer | undefined;
  /** Key sets by explicit JWKS URL, shared by the issuers naming the same one. */
  readonly #byUri = new Map<string, RemoteKeySet>();
  readonly #resolver: IssuerResolver | undefined;
  readonly #answers: LRUCache<string, boolean> | undefined;
  readonly #trusted: LRUCache<string, TrustedIssuer> | undefined;
  readonly #pending = new Map<string, Promise<IssuerState>>();
  /** Counters of key sets dropped from `#trusted`, so totals never go down. */
  #retired = { fetches: 0, failures: 0 };
  /** Told of key fetches and failures (telemetry), when on. */
  readonly #observer: KeySetObserver | undefined;

  constructor(
    options: ResolvedOptions,
    context: ErrorContext,
    onChange: () => void,
    observer?: KeySetObserver,
  ) {
    this.#options = options;
    this.#context = context;
    this.#onChange = onChange;
    this.#observer = observer;
    this.#resolver = options.issuerResolver;
    const algorithms = new Set(options.algorithms);
    for (const config of options.issuerList) {
      this.#fixed.set(config.issuer, this.#state(config));
      for (const alg of config.algorithms) algorithms.add(alg);
    }
    this.algorithms = algorithms;
    this.#only = this.#fixed.size === 1 ? this.#fixed.values().next().value : undefined;
    if (this.#resolver !== undefined) {
      const { max, answers, maxAge } = options.issuerCache;
      this.#answers = new LRUCache<string, boolean>({ max: answers, ttl: maxAge });
      this.#trusted = new LRUCache<string, TrustedIssuer>({
        max,
        dispose: (state) => {
          // A key set shared through a top-level jwksUri stays held: its counters still count.
          if ([...this.#byUri.values()].includes(state.keys)) return;
          const stats = state.keys.stats;
          this.#retired = {
            fetches: this.#retired.fetches + stats.fetches,
            failures: this.#retired.failures + stats.failures,
          };
        },
      });
    }
  }

  /**
   * The state of the issuer a token names (`iss`, not yet verified): synchronous for a listed or
   * already trusted issuer, a promise while the `issuer` function is asked. Throws (or rejects with)
   * {@link InvalidTokenError} `issuer` for an issuer not trusted, {@link IssuerUnavailableError} when
   * the function fails.
   */
  select(iss: unknown): IssuerState | Promise<IssuerState> {
    // One issuer: its key set is the only one, and `iss` is checked after the signature like any claim.
    if (this.#only !== undefined) return this.#only;
    if (typeof iss === 'string') {
      const fixed = this.#fixed.get(iss);
      if (fixed !== undefined) return fixed;
      if (this.#resolver !== undefined && isIssuerUrl(iss, this.#options.allowInsecureHttp)) {
        const answer = this.#answers!.get(iss);
        if (answer === true) return this.#trusted!.get(iss) ?? this.#trust(iss);
        if (answer === undefined) return this.#ask(iss);
      }
    }
    throw new InvalidTokenError('issuer', this.#context);
  }

  /** A trusted issuer's state, without asking the `issuer` function (e.g. for its metadata). */
  get(iss: string): IssuerState | undefined {
    return this.#fixed.get(iss) ?? this.#trusted?.peek(iss);
  }

  /** Fetch every listed issuer's keys now. Nothing to do for an `issuer` function. */
  warmUp(): Promise<void> {
    return Promise.all([...this.#keySets()].map((keys) => keys.refresh())).then(() => {});
  }

  /** Counters over every key set held. */
  get stats(): KeyStats {
    let fetches = this.#retired.fetches;
    let failures = this.#retired.failures;
    let keys = 0;
    let keySets = 0;
    let loadedAt: number | undefined;
    for (const set of this.#keySets()) {
      const stats = set.stats;
      fetches += stats.fetches;
      failures += stats.failures;
      keys += stats.keys;
      keySets++;
      if (stats.loadedAt !== undefined && (loadedAt === undefined || stats.loadedAt < loadedAt))
        loadedAt = stats.loadedAt;
    }
    return { fetches, failures, keys, loadedAt, keySets };
  }

  /** Every trusted issuer held: the listed ones, then those the `issuer` function trusts. */
  *states(): IterableIterator<IssuerState> {
    yield* this.#fixed.values();
    if (this.#trusted !== undefined) yield* this.#trusted.values();
  }

  /** Distinct key sets held. */
  #keySets(): Set<RemoteKeySet> {
    const sets = new Set<RemoteKeySet>();
    for (const state of this.#fixed.values()) sets.add(state.keys);
    if (this.#trusted !== undefined) for (const state of this.#trusted.values()) sets.add(state.keys);
    return sets;
  }

  #state(config: ResolvedIssuer): TrustedIssuer {
    return new TrustedIssuer(config, this.#options, (state) => {
      const { jwksUri } = config;
      const shared = jwksUri === undefined ? undefined : this.#byUri.get(jwksUri.href);
      if (shared !== undefined) return shared;
      const o = this.#options;
      const keys = new RemoteKeySet({
        uri: jwksUri ?? ((limits) => state.discover(limits, o.jwks.allowedOrigins)),
        jwks: o.jwks,
        fetch: o.fetch,
        allowInsecureHttp: o.allowInsecureHttp,
        context: this.#context,
        onChange: this.#onChange,
        issuer: config.issuer,
        onWarning: o.onWarning,
        warningInterval: DEFAULTS.warningInterval,
        observer: this.#observer,
      });
      if (jwksUri !== undefined) this.#byUri.set(jwksUri.href, keys);
      return keys;
    });
  }

  /** Hold a key set for an issuer the function trusts (the least recently used one may go). */
  #trust(iss: string): TrustedIssuer {
    const o = this.#options;
    const state = this.#state({
      issuer: iss,
      jwksUri: o.jwksUri,
      audiences: o.audiences,
      algorithms: o.algorithms,
    });
    this.#trusted!.set(iss, state);
    return state;
  }

  /** Ask the `issuer` function, once per issuer at a time, within `issuerCache.timeout`. */
  #ask(iss: string): Promise<IssuerState> {
    const inFlight = this.#pending.get(iss);
    if (inFlight !== undefined) return inFlight;
    const unavailable = (cause: unknown) => new IssuerUnavailableError(this.#context, { cause });
    // As many questions in flight as answers held, at most: a flood of new `iss` values cannot pile up.
    if (this.#pending.size >= this.#options.issuerCache.answers)
      return Promise.reject(unavailable(new Error('too many issuer questions in flight')));
    const resolver = this.#resolver!;
    const { timeout } = this.#options.issuerCache;
    const pending = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the issuer function did not answer within ${timeout} ms`)),
        timeout,
      );
      Promise.resolve()
        .then(() => resolver(iss))
        .then(resolve, reject)
        .finally(() => clearTimeout(timer));
    }).then(
      (answer) => {
        this.#pending.delete(iss);
        if (typeof answer !== 'boolean')
          throw unavailable(new TypeError('the issuer function must answer true or false'));
        this.#answers!.set(iss, answer);
        if (!answer) throw new InvalidTokenError('issuer', this.#context);
        return this.#trusted!.get(iss) ?? this.#trust(iss);
      },
      (error: unknown) => {
        this.#pending.delete(iss);
        throw unavailable(error);
      },
    );
    this.#pending.set(iss, pending);
    return pending;
  }
}
