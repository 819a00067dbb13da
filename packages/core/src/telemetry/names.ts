/**
 * The names core's OpenTelemetry signals use: its instrumentation scope, its span, every metric with
 * its unit, and every attribute. Stable within a major version, like error reasons; docs/observability.md
 * lists them (a test checks it against this object).
 *
 * @module
 */

/**
 * Every OpenTelemetry name core emits.
 *
 * - `scope`: the instrumentation scope (tracer and meter name).
 * - `span`: one span per `verify()` / `authenticate()` / `authenticateNow()` call, kind `INTERNAL`.
 * - `metrics`: name, unit (UCUM, as OpenTelemetry's conventions ask) and what each counts.
 * - `attributes`: the attribute keys. `enduser.id` is OpenTelemetry's own, and only recorded when
 *   `telemetry.recordSubject` is on.
 *
 * @example
 * ```ts
 * import { TELEMETRY_NAMES } from '@gatehouse/core';
 *
 * const spans = exporter.getFinishedSpans().filter((s) => s.name === TELEMETRY_NAMES.span);
 * ```
 */
export const TELEMETRY_NAMES = Object.freeze({
  scope: '@gatehouse/core',
  span: 'gatehouse.authenticate',
  metrics: Object.freeze({
    authentications: Object.freeze({
      name: 'gatehouse.authentications',
      unit: '{authentication}',
      kind: 'counter',
      description: 'Verifications and authentications, by outcome, reason and result-cache hit',
    }),
    dpopReplays: Object.freeze({
      name: 'gatehouse.dpop.replays',
      unit: '{proof}',
      kind: 'counter',
      description: 'DPoP proofs refused because they had been used before',
    }),
    jwksFetches: Object.freeze({
      name: 'gatehouse.jwks.fetches',
      unit: '{request}',
      kind: 'counter',
      description: 'HTTP requests made for signing keys (discovery documents and JWKS)',
    }),
    jwksFailures: Object.freeze({
      name: 'gatehouse.jwks.failures',
      unit: '{refresh}',
      kind: 'counter',
      description: 'Key-set refreshes that failed, by cause',
    }),
    jwksAge: Object.freeze({
      name: 'gatehouse.jwks.age',
      unit: 's',
      kind: 'gauge',
      description: 'Time since the key set of each issuer was last loaded',
    }),
    introspectionDuration: Object.freeze({
      name: 'gatehouse.introspection.duration',
      unit: 's',
      kind: 'histogram',
      description: 'Duration of token introspection calls (RFC 7662), by outcome',
    }),
  }),
  attributes: Object.freeze({
    /** `ok`, `error`, or `anonymous` (an `optional` request that carried no token). */
    outcome: 'gatehouse.outcome',
    /** The error's `reason` (`expired`, `signature`, `jwks_unavailable`…), on errors. */
    errorReason: 'gatehouse.error.reason',
    /** The error's OAuth `code` (`invalid_token`…), on errors that have one (spans only). */
    errorCode: 'gatehouse.error.code',
    /** The HTTP status the error answers with (spans only). */
    errorStatus: 'gatehouse.error.status',
    /** OpenTelemetry's `error.type`: only for server-side faults (503s, unexpected exceptions). */
    errorType: 'error.type',
    /** Whether the result came from the result cache (absent when the cache was not consulted). */
    cacheHit: 'gatehouse.cache.hit',
    /** The verified token's issuer (spans only, never an unverified one). */
    issuer: 'gatehouse.token.issuer',
    /** The verified token's `client_id` (spans only). */
    clientId: 'gatehouse.token.client_id',
    /** Whether the verified token carries `act` (delegation, impersonation) (spans only). */
    delegated: 'gatehouse.token.delegated',
    /** The verified token's subject, only with `telemetry.recordSubject` (spans only). */
    subject: 'enduser.id',
    /** The issuer a key set belongs to (`gatehouse.jwks.age`). */
    keySetIssuer: 'gatehouse.issuer',
    /** `active`, `inactive`, `refused` (active, but failed the verifier's checks) or `error` (503). */
    introspectionOutcome: 'gatehouse.introspection.outcome',
  }),
});
