/**
 * Core's metrics (src/telemetry/instruments.ts) beyond the authentication counter: the introspection
 * histogram against a real loopback RFC 7662 endpoint, the bound on distinct error kinds, and the
 * `error.type` of exceptions that are not AuthErrors.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createVerifier, TELEMETRY_NAMES } from '../../src/index.js';
import { errorType, MeterTallies } from '../../src/telemetry/instruments.js';
import { AUDIENCE, jwksOf, makeKey } from '../helpers/fixtures.js';
import { type IntrospectionServer, startIntrospectionServer } from '../helpers/introspection-server.js';
import { type Otel, startOtel } from '../helpers/otel.js';

const { metrics: M, attributes: A } = TELEMETRY_NAMES;
let as: IntrospectionServer;
let otel: Otel;

beforeAll(async () => {
  as = await startIntrospectionServer(jwksOf(makeKey('ES256', 'introspection-otel')));
  otel = startOtel();
});
afterAll(() => as.close());
afterEach(async () => {
  await otel.shutdown();
  otel = startOtel();
});

const now = () => Math.floor(Date.now() / 1000);
const active = (extra: Record<string, unknown> = {}) => ({
  active: true,
  iss: as.issuer,
  sub: 'user-42',
  client_id: 'spa-1',
  aud: AUDIENCE,
  token_type: 'Bearer',
  iat: now(),
  exp: now() + 600,
  ...extra,
});

const introspecting = () =>
  createVerifier({
    issuer: as.issuer,
    audience: AUDIENCE,
    onWarning: false,
    introspection: { clientId: 'orders-api', clientSecret: 'secret-0123456789', cacheMaxAge: 0 },
    telemetry: { tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider },
  });

describe('gatehouse.introspection.duration', () => {
  it('one observation per introspection call, in seconds, by outcome', async () => {
    const verifier = introspecting();
    as.answer((_req, res) =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(active()));
      }, 30),
    );
    await verifier.verify('opaque-token-1');
    await verifier.verify('opaque-token-2');
    as.answer({ active: false });
    await expect(verifier.verify('opaque-token-3')).rejects.toMatchObject({ reason: 'inactive' });
    as.answer(active({ aud: 'https://someone-else' }));
    await expect(verifier.verify('opaque-token-4')).rejects.toMatchObject({ reason: 'audience' });
    as.answer((_req, res) => res.writeHead(500).end());
    await expect(verifier.verify('opaque-token-5')).rejects.toMatchObject({ status: 503 });

    const points = await otel.points(M.introspectionDuration.name);
    const byOutcome = new Map(
      points.map((p) => [p.attributes[A.introspectionOutcome], p as { attributes: object; value: unknown }]),
    );
    expect([...byOutcome.keys()].sort()).toEqual(['active', 'error', 'inactive', 'refused']);
    const slow = byOutcome.get('active')!.value as { count: number; min: number; max: number; sum: number };
    expect(slow.count).toBe(2);
    expect(slow.min).toBeGreaterThanOrEqual(0.025); // seconds, not milliseconds
    expect(slow.max).toBeLessThan(5);
    expect(byOutcome.get('error')!.attributes).toEqual({
      [A.introspectionOutcome]: 'error',
      [A.errorType]: 'introspection_unavailable',
    });
    expect(await otel.value(M.introspectionDuration.name)).toBe(5);
    // Introspected authentications are counted like any other (the cache is off here: no hit attribute).
    expect(await otel.value(M.authentications.name, { [A.outcome]: 'ok' })).toBe(2);
    expect(await otel.value(M.authentications.name, { [A.errorReason]: 'inactive' })).toBe(1);
  });

  it('concurrent requests with one token share one introspection, observed once', async () => {
    const verifier = introspecting();
    as.answer((_req, res) =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(active()));
      }, 20),
    );
    await Promise.all([verifier.verify('shared-token'), verifier.verify('shared-token')]);
    expect(await otel.value(M.introspectionDuration.name)).toBe(1);
    expect(await otel.value(M.authentications.name, { [A.outcome]: 'ok' })).toBe(2);
  });
});

describe('bounds', () => {
  it('error.type of a thrown value: its class name, or _OTHER', () => {
    expect(errorType(new TypeError('x'))).toBe('TypeError');
    expect(errorType('a string')).toBe('_OTHER');
    const odd = new Error('x');
    odd.name = 'n'.repeat(65);
    expect(errorType(odd)).toBe('_OTHER');
  });

  it('distinct error kinds are bounded: beyond 200, the others count as _OTHER', async () => {
    const tallies = MeterTallies.of(otel.meterProvider);
    for (let i = 0; i < 250; i++) {
      const error = new Error('x');
      error.name = `Custom${i}`;
      tallies.failed(error, undefined);
    }
    const points = await otel.points(M.authentications.name);
    expect(points).toHaveLength(201); // 200 kinds, then _OTHER
    expect(await otel.value(M.authentications.name, { [A.errorType]: '_OTHER' })).toBe(50);
    expect(await otel.value(M.authentications.name, { [A.errorType]: 'Custom199' })).toBe(1);
  });
});
