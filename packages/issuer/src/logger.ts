/**
 * Structured JSON logs (pino) with redaction. The issuer logs only what it chooses (method, path
 * without query string, status, durations, OAuth error codes), and redaction is the second line of
 * defence: any field named like a credential is replaced before a line is written. A line written
 * while a span is active carries its `trace_id` and `span_id` (a mixin; with a logger of the
 * application's own, which a child cannot give a mixin, the request and audit lines still carry them).
 *
 * @module
 */
import pino, { type Logger } from 'pino';
import type { ResolvedConfig } from './issuer-config.js';
import { traceFields } from './tracing/log-fields.js';

/** Field names whose values never reach a log line. */
export const REDACTED_FIELDS = Object.freeze([
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'passwordHash',
  'secret',
  'clientSecret',
  'prometheusToken',
  'client_secret',
  'secretHash',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'id_token_hint',
  'subject_token',
  'actor_token',
  'subjectToken',
  'personalAccessToken',
  'pat',
  'code',
  'code_verifier',
  'assertion',
  'client_assertion',
  'privateJwk',
  'd',
]);

/** pino redaction paths: each field at the top level and up to two levels deep. */
export const REDACT_PATHS: readonly string[] = Object.freeze(
  REDACTED_FIELDS.flatMap((field) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
    const join = (prefix: string) => (key.startsWith('[') ? `${prefix}${key}` : `${prefix}.${key}`);
    return [key, join('*'), join('*.*')];
  }),
);

const redact = { paths: [...REDACT_PATHS], censor: '[redacted]' };

/**
 * The issuer's logger: the configured one (as a redacting child), or a new pino logger.
 *
 * @example
 * ```ts
 * const log = createLogger(resolveConfig({ baseUrl: 'http://localhost:3001' }));
 * log.info({ password: 'x' }, 'never shown'); // {"password":"[redacted]", …}
 * ```
 */
export function createLogger(config: Pick<ResolvedConfig, 'log'>): Logger {
  const base = { name: 'gatehouse-issuer' };
  if (config.log.logger !== undefined) return config.log.logger.child(base, { redact });
  const options = {
    level: config.log.level,
    base,
    redact,
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => traceFields(),
  };
  return config.log.destination === undefined ? pino(options) : pino(options, config.log.destination);
}
