/**
 * Core's metrics for one `MeterProvider`: counts kept in plain numbers by every verifier that records
 * to that provider, reported by observable (asynchronous) counters when the provider collects.
 *
 * Why counts and observable counters rather than `Counter.add()`: a synchronous instrument of the SDK
 * hashes the attribute set on every call (sorting its keys, `JSON.stringify`), which would cost more
 * than a cached verification itself. Here a request adds 1 to a number found without allocating
 * anything, and the SDK does its work once per collection. The counts belong to the provider, not to
 * a verifier: several verifiers add up, and a verifier that is garbage-collected takes nothing away
 * (an observable counter must never go down). The key-set age gauge asks each live verifier.
 *
 * @module
 */
import { AuthError } from '../errors.js';
import { TELEMETRY_NAMES } from './names.js';
import type {
  Attributes,
  HistogramLike,
  MeterProviderLike,
  ObservableLike,
  ObservableResultLike,
} from './types.js';

const { metrics: M, attributes: A } = TELEMETRY_NAMES;

/** A running count and the attributes it is reported with. */
class Tally {
  value = 0;
  readonly attributes: Attributes;
  constructor(attributes: Attributes) {
    this.attributes = attributes;
  }
}

/** Tallies for a result-cache hit (`true`), miss (`false`) and no lookup (`undefined`). */
type ByHit = readonly [miss: Tally, hit: Tally, none: Tally];

const byHit = (attributes: Attributes): ByHit => [
  new Tally({ ...attributes, [A.cacheHit]: false }),
  new Tally({ ...attributes, [A.cacheHit]: true }),
  new Tally(attributes),
];

const slot = (hit: boolean | undefined): 0 | 1 | 2 => (hit === undefined ? 2 : hit ? 1 : 0);

/** Most distinct error kinds counted apart; the rest are counted as `_OTHER` (OpenTelemetry's word). */
const MAX_ERROR_KINDS = 200;

/**
 * What a verifier reports about the age of its key sets: one entry per issuer with keys loaded.
 *
 * @example
 * ```ts
 * source.keySetAges(Date.now(), (seconds, issuer) => result.observe(seconds, { 'gatehouse.issuer': issuer }));
 * ```
 */
export interface KeySetAgeSource {
  keySetAges(now: number, observe: (seconds: number, issuer: string) => void): void;
}

/**
 * The `error.type` of a thrown value that is not an `AuthError`: its class name, or `_OTHER`.
 *
 * @example
 * ```ts
 * errorType(new TypeError('…')); // 'TypeError'
 * ```
 */
export function errorType(error: unknown): string {
  const name = error instanceof Error ? error.name : undefined;
  return typeof name === 'string' && name.length > 0 && name.length <= 64 ? name : '_OTHER';
}

/**
 * The metrics of one meter provider.
 *
 * @example
 * ```ts
 * const metrics = MeterTallies.of(meterProvider);
 * metrics.succeeded(true); // a result-cache hit
 * ```
 */
export class MeterTallies {
  static readonly #byProvider = new WeakMap<MeterProviderLike, MeterTallies>();

  /** The tallies of `provider`, created (with its instruments) the first time it is seen. */
  static of(provider: MeterProviderLike): MeterTallies {
    let tallies = MeterTallies.#byProvider.get(provider);
    if (tallies === undefined) {
      tallies = new MeterTallies(provider);
      MeterTallies.#byProvider.set(provider, tallies);
    }
    return tallies;
  }

  readonly #ok = byHit({ [A.outcome]: 'ok' });
  readonly #anonymous = new Tally({ [A.outcome]: 'anonymous' });
  readonly #errors = new Map<string, ByHit>();
  readonly #dpopReplays = new Tally({});
  readonly #jwksFetches = new Tally({});
  readonly #jwksFailures = new Map<string, Tally>();
  readonly #sources = new Set<WeakRef<KeySetAgeSource>>();
  readonly #introspection: HistogramLike;
  readonly #introspectionAttributes = new Map<string, Attributes>();

  private constructor(provider: MeterProviderLike) {
    const meter = provider.getMeter(TELEMETRY_NAMES.scope);
    const counter = (spec: { name: string; unit: string; description: string }): ObservableLike =>
      meter.createObservableCounter(spec.name, { unit: spec.unit, description: spec.description });
    const report = (instrument: ObservableLike, tallies: () => Iterable<Tally>) =>
      instrument.addCallback((result: ObservableResultLike) => {
        for (const tally of tallies()) if (tally.value > 0) result.observe(tally.value, tally.attributes);
      });
    const errors = this.#errors;
    const ok = this.#ok;
    const anonymous = this.#anonymous;
    report(counter(M.authentications), function* () {
      yield* ok;
      yield anonymous;
      for (const tallies of errors.values()) yield* tallies;
    });
    report(counter(M.dpopReplays), () => [this.#dpopReplays]);
    report(counter(M.jwksFetches), () => [this.#jwksFetches]);
    report(counter(M.jwksFailures), () => this.#jwksFailures.values());
    meter
      .createObservableGauge(M.jwksAge.name, { unit: M.jwksAge.unit, description: M.jwksAge.description })
      .addCallback((result) => this.#observeAges(result));
    this.#introspection = meter.createHistogram(M.introspectionDuration.name, {
      unit: M.introspectionDuration.unit,
      description: M.introspectionDuration.description,
      // Network calls: 5 ms to 10 s (the default buckets are meant for milliseconds).
      advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
    });
  }

  /** A call that resolved to a verified token. */
  succeeded(hit: boolean | undefined): void {
    this.#ok[slot(hit)].value++;
  }

  /** An `optional` call whose request carried no token. */
  anonymous(): void {
    this.#anonymous.value++;
  }

  /** A call that failed with `error`. */
  failed(error: unknown, hit: boolean | undefined): void {
    const auth = error instanceof AuthError;
    let key = auth ? error.reason : `type:${errorType(error)}`;
    if (!this.#errors.has(key) && this.#errors.size >= MAX_ERROR_KINDS) key = 'type:_OTHER';
    let tallies = this.#errors.get(key);
    if (tallies === undefined) {
      const attributes: Record<string, string> = { [A.outcome]: 'error' };
      if (auth) attributes[A.errorReason] = error.reason;
      if (!auth || error.status >= 500) attributes[A.errorType] = auth ? error.reason : key.slice(5);
      tallies = byHit(attributes);
      this.#errors.set(key, tallies);
    }
    tallies[slot(hit)].value++;
    if (auth && error.reason === 'dpop_replay') this.#dpopReplays.value++;
  }

  /** An HTTP request for signing keys was sent. */
  jwksFetched(): void {
    this.#jwksFetches.value++;
  }

  /** A key-set refresh failed with the given `KeySetError` code. */
  jwksFailed(code: string): void {
    let tally = this.#jwksFailures.get(code);
    if (tally === undefined) this.#jwksFailures.set(code, (tally = new Tally({ [A.errorType]: code })));
    tally.value++;
  }

  /** An introspection took `seconds` and ended with `outcome` (`error.type` for an error). */
  introspected(seconds: number, outcome: string, type?: string): void {
    const key = type === undefined ? outcome : `${outcome} ${type}`;
    let attributes = this.#introspectionAttributes.get(key);
    if (attributes === undefined) {
      attributes = {
        [A.introspectionOutcome]: outcome,
        ...(type === undefined ? {} : { [A.errorType]: type }),
      };
      this.#introspectionAttributes.set(key, attributes);
    }
    this.#introspection.record(seconds, attributes);
  }

  /** Report the key-set ages of `source` while it lives (held weakly: a verifier may be dropped). */
  watch(source: KeySetAgeSource): void {
    this.#sources.add(new WeakRef(source));
  }

  #observeAges(result: ObservableResultLike): void {
    const now = Date.now();
    for (const ref of this.#sources) {
      const source = ref.deref();
      if (source === undefined) this.#sources.delete(ref);
      else source.keySetAges(now, (seconds, issuer) => result.observe(seconds, { [A.keySetIssuer]: issuer }));
    }
  }
}
