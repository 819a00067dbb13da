/**
 * The `telemetry` option (src/telemetry/options.ts): validated when the verifier is created like every
 * other option, with the closest known name for a typo.
 */

import * as api from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { createVerifier, DEFAULTS, resolveOptions } from '../../src/index.js';
import { resolveTelemetryOptions } from '../../src/telemetry/options.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

describe('resolveTelemetryOptions', () => {
  it('defaults: the global providers, subject not recorded; false turns telemetry off', () => {
    expect(resolveTelemetryOptions(undefined)).toEqual({
      tracerProvider: undefined,
      meterProvider: undefined,
      api: undefined,
      recordSubject: DEFAULTS.telemetry.recordSubject,
      spans: DEFAULTS.telemetry.spans,
    });
    expect(DEFAULTS.telemetry.recordSubject).toBe(false);
    expect(DEFAULTS.telemetry.spans).toBe(true);
    expect(resolveTelemetryOptions(false)).toBe(false);
    expect(resolveOptions({ ...base, telemetry: false }).telemetry).toBe(false);
  });

  it('takes real providers and the API module', () => {
    const tracerProvider = new TracerProvider();
    const meterProvider = new MeterProvider();
    const resolved = resolveTelemetryOptions({
      tracerProvider,
      meterProvider,
      api,
      recordSubject: true,
      spans: false,
    });
    expect(resolved).toEqual({ tracerProvider, meterProvider, api, recordSubject: true, spans: false });
    expect(Object.isFrozen(resolved)).toBe(true);
  });

  it.each([
    [true, '"telemetry" option must be an object or false'],
    [null, '"telemetry" option must be an object or false'],
    [[], '"telemetry" option must be an object or false'],
    [
      { recordSubjects: true },
      'unknown option "telemetry.recordSubjects" (did you mean "telemetry.recordSubject"?)',
    ],
    [{ tracer: {} }, 'unknown option "telemetry.tracer"'],
    [{ tracerProvider: {} }, '"telemetry.tracerProvider" option must be an OpenTelemetry TracerProvider'],
    [{ meterProvider: api.trace }, '"telemetry.meterProvider" option must be an OpenTelemetry MeterProvider'],
    [{ api: { trace: {} } }, '"telemetry.api" option must be the @opentelemetry/api module'],
    [{ recordSubject: 'yes' }, '"telemetry.recordSubject" option must be a boolean'],
    [{ spans: 'off' }, '"telemetry.spans" option must be a boolean'],
    [{ span: false }, 'unknown option "telemetry.span" (did you mean "telemetry.spans"?)'],
  ])('refuses %j when the verifier is created', (value, message) => {
    expect(() => resolveTelemetryOptions(value)).toThrow(TypeError);
    expect(() => createVerifier({ ...base, telemetry: value as never })).toThrow(message);
  });

  it('a typo of the option itself names it', () => {
    expect(() => createVerifier({ ...base, telemtry: false } as never)).toThrow(
      'unknown option "telemtry" (did you mean "telemetry"?)',
    );
  });
});
