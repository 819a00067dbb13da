/**
 * OpenTelemetry in a verifier: the `gatehouse.authenticate` span around every `verify()` /
 * `authenticate()` / `authenticateNow()`, and the metrics of instruments.ts.
 *
 * - **Off costs nothing**: `createTelemetry()` decides once, when the verifier is created, and returns
 *   `undefined` when telemetry is off (`telemetry: false`) or `@opentelemetry/api` is not installed;
 *   the verifier then installs no hook at all (no wrapper, no observed cache, no observers).
 * - **Parent**: the span is started in the active context, so it is a child of the application's
 *   request span when a context manager is registered. It is not made active itself (that would cost
 *   a context switch per request for children that only a key fetch would have).
 * - **Status**: ERROR only for server-side faults — a 503 (`UnavailableError`: keys, issuer function,
 *   replay store or introspection unavailable) or an unexpected exception — as OpenTelemetry's HTTP
 *   conventions treat a server's 5xx. A refused token (401/403/400) is the caller's error: the span
 *   records `gatehouse.outcome`, `gatehouse.error.reason`, `gatehouse.error.code` and
 *   `gatehouse.error.status`, and leaves the status unset.
 * - **Nothing secret**: no attribute holds a token, a DPoP proof, a claim other than `iss`,
 *   `client_id` and whether `act` is present, nor an unverified value; the subject only with
 *   `recordSubject` (as `enduser.id`). Exception events are recorded for 503s only, whose messages
 *   are fixed descriptions.
 * - **Providers**: explicit ones (`tracerProvider`, `meterProvider`) are used as given; otherwise the
 *   global ones are looked up at each call (a few property reads), so an SDK registered after the
 *   verifier was created is used from then on.
 *
 * @module
 */
import { ResultCache } from '../cache.js';
import { AuthError, type KeySetError, UnavailableError } from '../errors.js';
import type { Maybe } from '../internal/maybe.js';
import type { AuthInfo } from '../types.js';
import { errorType, type KeySetAgeSource, MeterTallies } from './instruments.js';
import { type Loaded, loadOpenTelemetry } from './load.js';
import { TELEMETRY_NAMES } from './names.js';
import type { ResolvedTelemetryOptions } from './options.js';
import type {
  MeterProviderLike,
  OpenTelemetryApiLike,
  SpanLike,
  TracerLike,
  TracerProviderLike,
} from './types.js';

const A = TELEMETRY_NAMES.attributes;
/** `SpanKind.INTERNAL` and `SpanStatusCode.ERROR` of the OpenTelemetry API (stable values). */
const SPAN_OPTIONS = Object.freeze({ kind: 0 });
const STATUS_ERROR = 2;

/**
 * What a verifier says about the issuers it holds key sets for (an `IssuerState` is one).
 *
 * @example
 * ```ts
 * const views: Iterable<KeySetView> = issuers.states();
 * ```
 */
export interface KeySetView {
  readonly issuer: string;
  readonly keys: { readonly stats: { readonly loadedAt: number | undefined } };
}

/** A {@link ResultCache} that tells the telemetry whether the call in progress was a hit. */
class ObservedResultCache extends ResultCache {
  readonly #telemetry: VerifierTelemetry;
  constructor(max: number, maxAgeMs: number, telemetry: VerifierTelemetry) {
    super(max, maxAgeMs);
    this.#telemetry = telemetry;
  }
  override get(token: string, now: number): AuthInfo | undefined {
    const info = super.get(token, now);
    this.#telemetry.hit = info !== undefined;
    return info;
  }
}

/**
 * One verifier's telemetry.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry(resolved.telemetry, () => issuers.states());
 * const verifyNow = telemetry === undefined ? plainVerifyNow : telemetry.traced(plainVerifyNow);
 * ```
 */
export class VerifierTelemetry implements KeySetAgeSource {
  /** Whether the result cache was consulted by the call in progress, and with what result. */
  hit: boolean | undefined;
  /** Settles once `@opentelemetry/api` is loaded, where that is asynchronous; `warmUp()` awaits it. */
  readonly ready: Promise<void> | undefined;
  readonly #options: ResolvedTelemetryOptions;
  readonly #keySets: () => Iterable<KeySetView>;
  #api: OpenTelemetryApiLike | undefined;
  /** Whether anything can be recorded (false while the API loads, or when it is absent after all). */
  #on = false;
  #tracerProvider: TracerProviderLike | undefined;
  #tracer: TracerLike | undefined;
  /** The API's no-op tracer provider: the global proxy's delegate until an SDK is registered. */
  #noSdk: unknown;
  #meterProvider: MeterProviderLike | undefined;
  #tallies: MeterTallies | undefined;

  constructor(
    options: ResolvedTelemetryOptions,
    loaded: Loaded | Promise<Loaded>,
    keySets: () => Iterable<KeySetView>,
  ) {
    this.#options = options;
    this.#keySets = keySets;
    if (loaded instanceof Promise) this.ready = loaded.then((api) => this.#start(api));
    else this.#start(loaded);
  }

  #start(api: Loaded): void {
    this.#api = api;
    this.#quietly(() => {
      if (typeof api?.ProxyTracerProvider === 'function')
        this.#noSdk = new api.ProxyTracerProvider().getDelegate();
    });
    const { tracerProvider, meterProvider } = this.#options;
    if (tracerProvider !== undefined) this.#tracer = tracerProvider.getTracer(TELEMETRY_NAMES.scope);
    this.#on = api !== undefined || tracerProvider !== undefined || meterProvider !== undefined;
    // Instruments now, so the key-set age is reported from the start, before any request.
    this.#quietly(() => this.#metrics());
  }

  /**
   * The tracer of the explicit provider, or of the global one as it is now; `undefined` while the
   * global one has no SDK behind it (a span would be a no-op: not even started).
   */
  #currentTracer(): TracerLike | undefined {
    if (this.#options.tracerProvider !== undefined) return this.#tracer;
    const provider = this.#api?.trace.getTracerProvider() as
      | (TracerProviderLike & { getDelegate?: () => unknown })
      | undefined;
    if (provider !== this.#tracerProvider) {
      this.#tracerProvider = provider;
      this.#tracer = provider?.getTracer(TELEMETRY_NAMES.scope);
    }
    if (this.#noSdk !== undefined && provider?.getDelegate?.() === this.#noSdk) return undefined;
    return this.#tracer;
  }

  /** The metrics of the explicit meter provider, or of the global one as it is now. */
  #metrics(): MeterTallies | undefined {
    const provider = this.#options.meterProvider ?? this.#api?.metrics?.getMeterProvider();
    if (provider !== this.#meterProvider) {
      this.#meterProvider = provider;
      this.#tallies = undefined; // stays so for a provider that cannot create the instruments
      if (provider !== undefined) {
        const tallies = MeterTallies.of(provider);
        tallies.watch(this);
        this.#tallies = tallies;
      }
    }
    return this.#tallies;
  }

  /** Run `record`, ignoring what it throws: recording never changes an answer. */
  #quietly(record: () => void): void {
    try {
      record();
    } catch {}
  }

  /** `entry` with a span and the metrics around each call. */
  traced<A, B, R>(entry: (a: A, b?: B) => Maybe<R>): (a: A, b?: B) => Maybe<R> {
    return (a, b) => {
      if (!this.#on) return entry(a, b);
      const span = this.#startSpan();
      const outer = this.hit;
      this.hit = undefined;
      let result: Maybe<R>;
      try {
        result = entry(a, b);
      } catch (error) {
        const hit = this.hit;
        this.hit = outer;
        this.#failed(span, error, hit);
        throw error;
      }
      const hit = this.hit;
      this.hit = outer;
      if (!(result instanceof Promise)) return this.#succeeded(span, result, hit);
      return result.then(
        (value) => this.#succeeded(span, value, hit),
        (error: unknown) => {
          this.#failed(span, error, hit);
          throw error;
        },
      );
    };
  }

  /** The call's span, or `undefined` with spans off, without a tracer (or when a custom one throws). */
  #startSpan(): SpanLike | undefined {
    if (!this.#options.spans) return undefined;
    try {
      return this.#currentTracer()?.startSpan(TELEMETRY_NAMES.span, SPAN_OPTIONS);
    } catch {
      return undefined;
    }
  }

  // Not through #quietly: no closure per call.
  #succeeded<R>(span: SpanLike | undefined, result: R, hit: boolean | undefined): R {
    try {
      this.#recordSuccess(span, result as AuthInfo | undefined, hit);
    } catch {}
    return result;
  }

  #failed(span: SpanLike | undefined, error: unknown, hit: boolean | undefined): void {
    try {
      this.#recordFailure(span, error, hit);
    } catch {}
  }

  #recordSuccess(span: SpanLike | undefined, info: AuthInfo | undefined, hit: boolean | undefined): void {
    const tallies = this.#metrics();
    if (info === undefined) tallies?.anonymous();
    else tallies?.succeeded(hit);
    if (span === undefined) return;
    if (span.isRecording()) {
      if (info === undefined) {
        span.setAttribute(A.outcome, 'anonymous');
      } else {
        span.setAttribute(A.outcome, 'ok');
        span.setAttribute(A.issuer, info.issuer);
        if (info.clientId !== undefined) span.setAttribute(A.clientId, info.clientId);
        span.setAttribute(A.delegated, info.delegated);
        if (this.#options.recordSubject && info.subject !== undefined)
          span.setAttribute(A.subject, info.subject);
      }
      if (hit !== undefined) span.setAttribute(A.cacheHit, hit);
    }
    span.end();
  }

  #recordFailure(span: SpanLike | undefined, error: unknown, hit: boolean | undefined): void {
    this.#metrics()?.failed(error, hit);
    if (span === undefined) return;
    if (span.isRecording()) {
      span.setAttribute(A.outcome, 'error');
      if (hit !== undefined) span.setAttribute(A.cacheHit, hit);
      if (error instanceof AuthError) {
        span.setAttribute(A.errorReason, error.reason);
        if (error.code !== undefined) span.setAttribute(A.errorCode, error.code);
        span.setAttribute(A.errorStatus, error.status);
        if (error instanceof UnavailableError) {
          span.setAttribute(A.errorType, error.reason);
          span.setStatus({ code: STATUS_ERROR, message: error.description });
          span.recordException(error);
        }
      } else {
        // Not an AuthError: a fault (a claim check that threw, bad call options). Its message may
        // hold anything, so only its class name is recorded.
        span.setAttribute(A.errorType, errorType(error));
        span.setStatus({ code: STATUS_ERROR });
      }
    }
    span.end();
  }

  /** A result cache whose lookups the span and the metrics report. */
  resultCache(max: number, maxAgeMs: number): ResultCache {
    return new ObservedResultCache(max, maxAgeMs, this);
  }

  /** What the key sets report: HTTP requests for keys, failed refreshes. */
  readonly keySets = Object.freeze({
    fetched: (): void => {
      if (this.#on) this.#quietly(() => this.#metrics()?.jwksFetched());
    },
    failed: (error: KeySetError): void => {
      if (this.#on) this.#quietly(() => this.#metrics()?.jwksFailed(error.code));
    },
  });

  /** What the introspection path reports: each call's duration and outcome. */
  readonly introspection = Object.freeze({
    observe: <T>(pending: Promise<T>): Promise<T> => {
      if (!this.#on) return pending;
      const started = performance.now();
      const record = (outcome: string, type?: string) =>
        this.#quietly(() =>
          this.#metrics()?.introspected((performance.now() - started) / 1000, outcome, type),
        );
      pending.then(
        () => record('active'),
        (error: unknown) => {
          if (error instanceof UnavailableError) record('error', error.reason);
          else if (error instanceof AuthError && error.reason === 'inactive') record('inactive');
          else if (error instanceof AuthError) record('refused');
          else record('error', errorType(error));
        },
      );
      return pending;
    },
  });

  /** {@link KeySetAgeSource}: seconds since each held key set was loaded, per issuer. */
  keySetAges(now: number, observe: (seconds: number, issuer: string) => void): void {
    for (const state of this.#keySets()) {
      const loadedAt = state.keys.stats.loadedAt;
      if (loadedAt !== undefined) observe(Math.max(0, (now - loadedAt) / 1000), state.issuer);
    }
  }
}

/**
 * The telemetry of a verifier with these options, or `undefined` when there is none: `telemetry: false`,
 * or `@opentelemetry/api` not installed and no provider given. `keySets` lists the issuers whose key
 * sets the verifier holds (for `gatehouse.jwks.age`); `load` is for tests.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry(resolved.telemetry, () => issuers.states());
 * ```
 */
export function createTelemetry(
  options: ResolvedTelemetryOptions | false,
  keySets: () => Iterable<KeySetView>,
  load: () => Loaded | Promise<Loaded> = loadOpenTelemetry,
): VerifierTelemetry | undefined {
  if (options === false) return undefined;
  const explicit = options.tracerProvider !== undefined && options.meterProvider !== undefined;
  const loaded = options.api ?? (explicit ? undefined : load());
  if (loaded === undefined && options.tracerProvider === undefined && options.meterProvider === undefined)
    return undefined;
  return new VerifierTelemetry(options, loaded, keySets);
}
