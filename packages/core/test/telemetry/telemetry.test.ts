/**
 * OpenTelemetry in the verifier (src/telemetry/telemetry.ts, instruments.ts), against the SDK with
 * in-memory exporters and a real loopback JWKS server: the `gatehouse.authenticate` span (name,
 * attributes, status, parent), every metric after a known number of calls, nothing secret in any
 * attribute, and the cases where telemetry does nothing (`telemetry: false`, no SDK registered, the API
 * not installed).
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { DataPointType } from '@opentelemetry/sdk-metrics';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, type RequestLike, TELEMETRY_NAMES, type VerifierOptions } from '../../src/index.js';
import { createTelemetry } from '../../src/telemetry/telemetry.js';
import { makeProof, thumbprintOf } from '../helpers/dpop.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from '../helpers/fixtures.js';
import { type JwksServer, startJwksServer } from '../helpers/jwks-server.js';
import { type Otel, partsOf, registerGlobally, startOtel } from '../helpers/otel.js';

const { metrics: M, attributes: A } = TELEMETRY_NAMES;
const key = makeKey('ES256', 'otel-1');
const dpopKey = makeKey('ES256', 'otel-client');
let server: JwksServer;
let otel: Otel;

beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
});
afterAll(() => server.close());
beforeAll(() => {
  otel = startOtel();
});
afterEach(async () => {
  await otel.shutdown();
  otel = startOtel();
  server.setMode('ok');
});

/** A verifier recording to this test's providers. */
const make = (options: Partial<VerifierOptions> = {}) =>
  createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri: server.jwksUri,
    telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
    ...options,
  });

const gatehouseSpans = async () => (await otel.spans()).filter((s) => s.name === TELEMETRY_NAMES.span);

describe('the gatehouse.authenticate span', () => {
  it('one INTERNAL span per call: outcome, issuer, client, act, cache hit; status unset', async () => {
    const verifier = make();
    const token = signToken(key, claims({ act: { sub: 'support-7' } }));
    await verifier.verify(token);
    await verifier.verify(token);
    const spans = await gatehouseSpans();
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.instrumentationScope.name).toBe('@gatehouse/core');
      expect(span.attributes).toMatchObject({
        [A.outcome]: 'ok',
        [A.issuer]: ISSUER,
        [A.clientId]: 'spa-1',
        [A.delegated]: true,
      });
      expect(span.attributes[A.subject]).toBeUndefined();
    }
    expect(spans.map((s) => s.attributes[A.cacheHit])).toEqual([false, true]);
  });

  it('a refused token (401, 403) is the caller’s error: reason, code and status recorded, span status unset', async () => {
    const verifier = make();
    await expect(verifier.verify(signToken(key, claims({ exp: 1 })))).rejects.toMatchObject({
      reason: 'expired',
    });
    const weak = signToken(key, claims({ scope: 'profile' }));
    await expect(verifier.verify(weak, { scopes: 'read:orders' })).rejects.toMatchObject({ status: 403 });
    const [expired, forbidden] = await gatehouseSpans();
    expect(expired!.attributes).toEqual({
      [A.outcome]: 'error',
      [A.cacheHit]: false,
      [A.errorReason]: 'expired',
      [A.errorCode]: 'invalid_token',
      [A.errorStatus]: 401,
    });
    expect(forbidden!.attributes).toMatchObject({
      [A.outcome]: 'error',
      [A.errorReason]: 'insufficient_scope',
      [A.errorCode]: 'insufficient_scope',
      [A.errorStatus]: 403,
    });
    for (const span of [expired!, forbidden!]) {
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes[A.errorType]).toBeUndefined();
      expect(span.events).toEqual([]);
    }
  });

  it('a server-side fault (503: keys unavailable) sets status ERROR, error.type and an exception event', async () => {
    server.setMode('500');
    const verifier = make({ onWarning: false });
    await expect(verifier.verify(signToken(key))).rejects.toMatchObject({ status: 503 });
    const [span] = await gatehouseSpans();
    expect(span!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'The signing keys cannot be retrieved right now; try again later',
    });
    expect(span!.attributes).toMatchObject({
      [A.outcome]: 'error',
      [A.errorReason]: 'jwks_unavailable',
      [A.errorType]: 'jwks_unavailable',
      [A.errorStatus]: 503,
    });
    expect(span!.attributes[A.errorCode]).toBeUndefined();
    expect(span!.events.map((e) => e.name)).toEqual(['exception']);
    expect(span!.events[0]!.attributes?.['exception.type']).toBe('KeysUnavailableError');
  });

  it('an exception that is not an AuthError sets status ERROR and its class as error.type, no message', async () => {
    const verifier = make();
    const bad = { scopes: 'read:orders', colour: 'blue' } as never;
    await expect(verifier.verify(signToken(key), bad)).rejects.toBeInstanceOf(TypeError);
    const [span] = await gatehouseSpans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span!.attributes).toEqual({ [A.outcome]: 'error', [A.errorType]: 'TypeError' });
  });

  it('authenticate() without a token: MissingTokenError, or outcome anonymous when optional', async () => {
    const verifier = make();
    const bare: RequestLike = { headers: {}, method: 'GET', url: '/orders' };
    await expect(verifier.authenticate(bare)).rejects.toMatchObject({ reason: 'missing_token' });
    await expect(verifier.authenticate(bare, { optional: true })).resolves.toBeUndefined();
    expect(verifier.authenticateNow(bare, { optional: true })).toBeUndefined();
    const spans = await gatehouseSpans();
    expect(spans.map((s) => s.attributes)).toEqual([
      { [A.outcome]: 'error', [A.errorReason]: 'missing_token', [A.errorStatus]: 401 },
      { [A.outcome]: 'anonymous' },
      { [A.outcome]: 'anonymous' },
    ]);
  });

  it('no cache-hit attribute when the result cache is off', async () => {
    const verifier = make({ cache: false });
    await verifier.verify(signToken(key));
    const [span] = await gatehouseSpans();
    expect(span!.attributes[A.outcome]).toBe('ok');
    expect(A.cacheHit in span!.attributes).toBe(false);
  });

  it('is a child of the application’s active span (AsyncLocalStorage context manager)', async () => {
    const undo = registerGlobally(otel.tracerProvider);
    try {
      const verifier = make();
      const token = signToken(key);
      const app = trace.getTracer('app');
      await app.startActiveSpan('GET /orders', async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 1)); // an async hop: the context must follow
        await verifier.verify(token); // keys fetched: the asynchronous path
        await verifier.verify(token); // cached: the synchronous path
        request.end();
      });
      await verifier.verify(token); // outside any span: a root span
      const spans = await otel.spans();
      const parent = spans.find((s) => s.name === 'GET /orders')!;
      const ours = spans.filter((s) => s.name === TELEMETRY_NAMES.span);
      expect(ours).toHaveLength(3);
      for (const span of ours.slice(0, 2)) {
        expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
        expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
      }
      expect(ours[2]!.parentSpanContext).toBeUndefined();
      // The verifier's span is not made active: the application's stays current after the call.
      await app.startActiveSpan('outer', async (outer) => {
        await verifier.verify(token);
        expect(trace.getSpan(context.active())).toBe(outer);
        outer.end();
      });
    } finally {
      undo();
    }
  });
});

describe('a failing provider', () => {
  it('changes no answer: whatever a tracer, span or meter throws is ignored', async () => {
    const boom = () => {
      throw new Error('exporter down');
    };
    const span = {
      isRecording: () => true,
      setAttribute: boom,
      setStatus: boom,
      recordException: boom,
      end: boom,
    };
    const meter = { createHistogram: boom, createObservableCounter: boom, createObservableGauge: boom };
    const token = signToken(key);
    for (const tracer of [{ startSpan: boom }, { startSpan: () => span }]) {
      const verifier = make({
        telemetry: { tracerProvider: { getTracer: () => tracer }, meterProvider: otel.meterProvider },
      });
      await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
      await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
      await expect(verifier.verify(`${token}x`)).rejects.toMatchObject({ status: 401 });
    }
    // A meter provider that cannot create its instruments: no metrics, the same answers.
    const verifier = make({
      telemetry: { tracerProvider: otel.tracerProvider, meterProvider: { getMeter: () => meter } },
    });
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
    await expect(verifier.verify(`${token}x`)).rejects.toMatchObject({ status: 401 });
    expect((await gatehouseSpans()).map((s) => s.attributes[A.outcome])).toEqual(['ok', 'error']);
  });
});

describe('nothing secret is recorded', () => {
  it('no token, DPoP proof, jti or subject in any attribute, event or metric; enduser.id only on opt-in', async () => {
    const jkt = await thumbprintOf(dpopKey);
    const token = signToken(key, claims({ sub: 'alice-subject-9', jti: 'jti-secret-77', cnf: { jkt } }));
    const proof = makeProof({ key: dpopKey, token, url: 'https://api.test/orders' });
    const request = (p: string): RequestLike => ({
      headers: { authorization: `DPoP ${token}`, dpop: p },
      method: 'GET',
      url: 'https://api.test/orders',
    });
    const secrets = [...partsOf(token), ...partsOf(proof), 'jti-secret-77', 'alice-subject-9'];
    const check = async () => {
      const values = await otel.recordedValues();
      expect(values.length).toBeGreaterThan(10);
      for (const value of values) for (const secret of secrets) expect(value).not.toContain(secret);
    };

    const verifier = make();
    await verifier.authenticate(request(proof));
    await expect(verifier.authenticate(request(proof))).rejects.toMatchObject({ reason: 'dpop_replay' });
    await expect(verifier.verify(`${token}x`)).rejects.toMatchObject({ status: 401 });
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'bound_token' });
    await check();

    // With recordSubject, the subject (and only it) appears, as enduser.id.
    const opted = make({
      telemetry: {
        tracerProvider: otel.tracerProvider,
        meterProvider: otel.meterProvider,
        recordSubject: true,
      },
    });
    const plain = signToken(key, claims({ sub: 'bob-subject-3' }));
    await opted.verify(plain);
    const last = (await gatehouseSpans()).at(-1)!;
    expect(last.attributes[A.subject]).toBe('bob-subject-3');
    for (const value of await otel.recordedValues())
      for (const secret of partsOf(plain)) expect(value).not.toContain(secret);
  });
});

describe('metrics', () => {
  it('counts authentications by outcome, reason and cache hit; DPoP replays; JWKS fetches; key-set age', async () => {
    const verifier = make();
    const token = signToken(key);
    for (let i = 0; i < 5; i++) await verifier.verify(token); // 1 miss, 4 hits
    await expect(verifier.verify(signToken(key, claims({ exp: 1 })))).rejects.toThrow();
    await expect(verifier.verify(signToken(key, claims({ exp: 1 })))).rejects.toThrow();
    await expect(verifier.verify(token, { scopes: 'admin' })).rejects.toThrow(); // a hit, then 403
    await expect(verifier.authenticate({ headers: {} })).rejects.toThrow();
    await verifier.authenticate({ headers: {} }, { optional: true });

    const count = (attributes: Record<string, unknown>) =>
      otel.value(M.authentications.name, attributes as never);
    expect(await count({ [A.outcome]: 'ok', [A.cacheHit]: false })).toBe(1);
    expect(await count({ [A.outcome]: 'ok', [A.cacheHit]: true })).toBe(4);
    expect(await count({ [A.outcome]: 'error', [A.errorReason]: 'expired', [A.cacheHit]: false })).toBe(2);
    expect(
      await count({ [A.outcome]: 'error', [A.errorReason]: 'insufficient_scope', [A.cacheHit]: true }),
    ).toBe(1);
    expect(await count({ [A.outcome]: 'error', [A.errorReason]: 'missing_token' })).toBe(1);
    expect(await count({ [A.outcome]: 'anonymous' })).toBe(1);
    expect(await count({})).toBe(10);
    // Refused tokens are not faults: no error.type on any of these points.
    for (const point of await otel.points(M.authentications.name))
      expect(point.attributes[A.errorType]).toBeUndefined();

    expect(await otel.value(M.jwksFetches.name)).toBe(1);
    expect(await otel.value(M.jwksFailures.name)).toBe(0);
    expect(await otel.value(M.dpopReplays.name)).toBe(0);
    const [age] = await otel.points(M.jwksAge.name);
    expect(age!.attributes).toEqual({ [A.keySetIssuer]: ISSUER });
    expect(age!.value).toBeGreaterThanOrEqual(0);
    expect(age!.value).toBeLessThan(60);
  });

  it('creates every instrument of TELEMETRY_NAMES, with its kind, unit and description, once per meter provider', async () => {
    const created: { kind: string; name: string; unit?: string; description?: string }[] = [];
    const instrument =
      (kind: string) => (name: string, options?: { unit?: string; description?: string }) => {
        created.push({ kind, name, unit: options?.unit, description: options?.description });
        return { addCallback() {}, removeCallback() {}, record() {} };
      };
    const meter = {
      createHistogram: instrument('histogram'),
      createObservableCounter: instrument('counter'),
      createObservableGauge: instrument('gauge'),
    };
    const meterProvider = { getMeter: () => meter };
    make({ telemetry: { meterProvider, tracerProvider: otel.tracerProvider } });
    make({ telemetry: { meterProvider, tracerProvider: otel.tracerProvider } });
    expect(created).toEqual(
      Object.values(M).map(({ kind, name, unit, description }) => ({ kind, name, unit, description })),
    );
    // And the SDK reports them so (those with data here).
    await make().verify(signToken(key));
    const reported = new Map((await otel.metrics()).map((m) => [m.descriptor.name, m]));
    expect([...reported.keys()].sort()).toEqual(
      [M.authentications.name, M.jwksAge.name, M.jwksFetches.name].sort(),
    );
    for (const [name, metric] of reported) {
      const spec = Object.values(M).find((s) => s.name === name)!;
      expect(metric.descriptor.unit).toBe(spec.unit);
      expect(metric.dataPointType).toBe(spec.kind === 'gauge' ? DataPointType.GAUGE : DataPointType.SUM);
    }
  });

  it('counts failed key-set refreshes by cause, with every HTTP request made for keys', async () => {
    server.setMode('500');
    const verifier = make({ onWarning: false, jwks: { backoffInitial: 0, backoffMax: 0 } });
    await expect(verifier.verify(signToken(key))).rejects.toMatchObject({ status: 503 });
    await expect(verifier.warmUp()).rejects.toMatchObject({ code: 'server_error' });
    expect(await otel.value(M.jwksFetches.name)).toBe(2);
    expect(await otel.value(M.jwksFailures.name, { [A.errorType]: 'server_error' })).toBe(2);
    expect(
      await otel.value(M.authentications.name, {
        [A.outcome]: 'error',
        [A.errorReason]: 'jwks_unavailable',
        [A.errorType]: 'jwks_unavailable',
      }),
    ).toBe(1);
    expect(await otel.points(M.jwksAge.name)).toEqual([]); // no keys loaded: no age
  });

  it('counts DPoP replays refused', async () => {
    const jkt = await thumbprintOf(dpopKey);
    const token = signToken(key, claims({ cnf: { jkt } }));
    const verifier = make();
    const request = (proof: string): RequestLike => ({
      headers: { authorization: `DPoP ${token}`, dpop: proof },
      method: 'GET',
      url: 'https://api.test/orders',
    });
    const proof = makeProof({ key: dpopKey, token });
    await verifier.authenticate(request(proof));
    for (let i = 0; i < 3; i++)
      await expect(verifier.authenticate(request(proof))).rejects.toMatchObject({ reason: 'dpop_replay' });
    expect(await otel.value(M.dpopReplays.name)).toBe(3);
    expect(await otel.value(M.authentications.name, { [A.errorReason]: 'dpop_replay' })).toBe(3);
  });

  it('several verifiers on one meter provider add up, and never count down when one is dropped', async () => {
    const token = signToken(key);
    for (let i = 0; i < 3; i++) await make().verify(token);
    expect(await otel.value(M.authentications.name, { [A.outcome]: 'ok' })).toBe(3);
    expect(await otel.value(M.jwksFetches.name)).toBe(3);
  });
});

describe('spans: false', () => {
  it('starts no span and keeps every metric, even with an SDK registered globally', async () => {
    const undo = registerGlobally(otel.tracerProvider, otel.meterProvider);
    try {
      const started: string[] = [];
      const tracer = otel.tracerProvider.getTracer('spy');
      const spy = {
        getTracer: () => ({
          startSpan: (name: string) => {
            started.push(name);
            return tracer.startSpan(name);
          },
        }),
      };
      for (const verifier of [
        make({ telemetry: { meterProvider: otel.meterProvider, spans: false } }),
        make({ telemetry: { tracerProvider: spy, meterProvider: otel.meterProvider, spans: false } }),
      ]) {
        const token = signToken(key);
        await verifier.verify(token);
        await verifier.verify(token);
        await expect(verifier.verify(signToken(key, claims({ exp: 1 })))).rejects.toMatchObject({
          reason: 'expired',
        });
      }
      expect(started).toEqual([]);
      expect(await otel.spans()).toEqual([]);
      const count = (attributes: Record<string, unknown>) =>
        otel.value(M.authentications.name, attributes as never);
      expect(await count({ [A.outcome]: 'ok', [A.cacheHit]: false })).toBe(2);
      expect(await count({ [A.outcome]: 'ok', [A.cacheHit]: true })).toBe(2);
      expect(await count({ [A.outcome]: 'error', [A.errorReason]: 'expired' })).toBe(2);
    } finally {
      undo();
    }
  });
});

describe('when telemetry does nothing', () => {
  it('telemetry: false records nothing, even with an SDK registered globally', async () => {
    const undo = registerGlobally(otel.tracerProvider, otel.meterProvider);
    try {
      const verifier = make({ telemetry: false });
      await verifier.verify(signToken(key));
      await expect(verifier.verify('nope')).rejects.toThrow();
      expect(await otel.spans()).toEqual([]);
      expect(await otel.points(M.authentications.name)).toEqual([]);
      expect(createTelemetry(false, () => [])).toBeUndefined();
    } finally {
      undo();
    }
  });

  it('the API installed but no SDK registered: a no-op, and the verifier works as before', async () => {
    const verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri });
    const token = signToken(key);
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ subject: 'user-42' });
    await expect(verifier.verify(`${token}x`)).rejects.toMatchObject({ status: 401 });
    expect(await otel.spans()).toEqual([]);
  });

  it('no span is even started while the global provider has no SDK behind it', async () => {
    const api = await import('@opentelemetry/api');
    const proxy = new api.ProxyTracerProvider(); // what trace.getTracerProvider() is before registration
    const started: string[] = [];
    const getTracer = proxy.getTracer.bind(proxy);
    proxy.getTracer = (name, version) => {
      const tracer = getTracer(name, version);
      return {
        startSpan: (...args: Parameters<typeof tracer.startSpan>) => {
          started.push(args[0]);
          return tracer.startSpan(...args);
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer),
      };
    };
    const local = { ...api, trace: { getTracerProvider: () => proxy } };
    const verifier = make({ telemetry: { api: local } });
    const token = signToken(key);
    await verifier.verify(token);
    expect(started).toEqual([]);
    proxy.setDelegate(otel.tracerProvider); // what trace.setGlobalTracerProvider() does
    await verifier.verify(token);
    expect(started).toEqual([TELEMETRY_NAMES.span]);
    expect((await gatehouseSpans()).map((s) => s.attributes[A.cacheHit])).toEqual([true]);
  });

  it('an SDK registered after the verifier was created is used from then on', async () => {
    const verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri });
    const token = signToken(key);
    await verifier.verify(token);
    const undo = registerGlobally(otel.tracerProvider, otel.meterProvider);
    try {
      await verifier.verify(token);
      const spans = await gatehouseSpans();
      expect(spans).toHaveLength(1);
      expect(spans[0]!.attributes[A.cacheHit]).toBe(true);
      expect(await otel.value(M.authentications.name, { [A.outcome]: 'ok' })).toBe(1);
    } finally {
      undo();
    }
  });

  it('@opentelemetry/api absent and no provider given: no telemetry at all', () => {
    const absent = () => undefined;
    const defaults = {
      tracerProvider: undefined,
      meterProvider: undefined,
      api: undefined,
      recordSubject: false,
      spans: true,
    };
    expect(createTelemetry(defaults, () => [], absent)).toBeUndefined();
    // Explicit providers need no API.
    expect(
      createTelemetry({ ...defaults, tracerProvider: otel.tracerProvider }, () => [], absent),
    ).toBeDefined();
  });

  it('loaded asynchronously: nothing recorded until the import settles, which ready (warmUp) awaits', async () => {
    const undo = registerGlobally(otel.tracerProvider, otel.meterProvider);
    try {
      const api = await import('@opentelemetry/api');
      let settle!: (value: typeof api) => void;
      const loading = new Promise<typeof api>((resolve) => {
        settle = resolve;
      });
      const defaults = {
        tracerProvider: undefined,
        meterProvider: undefined,
        api: undefined,
        recordSubject: false,
        spans: true,
      };
      const telemetry = createTelemetry(
        defaults,
        () => [],
        () => loading,
      )!;
      const entry = telemetry.traced((_request: object) => undefined);
      expect(entry({})).toBeUndefined();
      expect(await gatehouseSpans()).toEqual([]);
      settle(api);
      await telemetry.ready;
      expect(entry({})).toBeUndefined();
      const spans = await gatehouseSpans();
      expect(spans.map((s) => s.attributes)).toEqual([{ [A.outcome]: 'anonymous' }]);
    } finally {
      undo();
    }
  });
});
