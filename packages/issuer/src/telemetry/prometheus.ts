/**
 * The opt-in Prometheus `/metrics` endpoint: OpenTelemetry's `PrometheusExporter` as a metric reader,
 * without its own server, answered either by a server of the issuer's own on
 * `telemetry.prometheusHost:prometheusPort` (`own-port`, loopback by default) or at `{baseUrl}/metrics`
 * on the issuer's port (`issuer-port`, always behind the bearer token). The token, when set, is compared
 * in constant time (both sides hashed first, so neither its length nor its bytes leak) and never logged.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { ResolvedTelemetryConfig } from '../config/telemetry.js';
import type { RequestHandler } from '../front.js';
import { closeServer, listenOn } from '../internal/listen.js';

/** The path `/metrics` is served at (below `basePath` on the issuer's port). */
export const METRICS_PATH = '/metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Whether `authorization` carries `Bearer {token}`, compared in constant time.
 *
 * @example
 * ```ts
 * bearerMatches(req.headers.authorization, expected); // false for a missing or wrong token
 * ```
 */
export function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization ?? '');
  // Hashed even when absent, so an answer takes as long with or without a header.
  return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
}

/**
 * The Prometheus endpoint of one issuer.
 *
 * @example
 * ```ts
 * const endpoint = createPrometheusEndpoint(config.telemetry);
 * meterProvider = new MeterProvider({ readers: [endpoint.reader] });
 * ```
 */
export interface PrometheusEndpoint {
  /** The metric reader to give the meter provider. */
  readonly reader: PrometheusExporter;
  /** Answer a `/metrics` request (token checked). */
  readonly answer: RequestHandler;
  /** Bind the own server (`own-port`); resolves to its address, `undefined` with `issuer-port`. */
  start(): Promise<AddressInfo | undefined>;
  /** Close the own server. */
  close(): Promise<void>;
}

/**
 * Build the endpoint from the `telemetry` settings (`prometheus` not `off`).
 *
 * @example
 * ```ts
 * const endpoint = createPrometheusEndpoint({ ...config.telemetry, prometheus: 'own-port' });
 * const address = await endpoint.start();
 * ```
 */
export function createPrometheusEndpoint(settings: ResolvedTelemetryConfig): PrometheusEndpoint {
  const reader = new PrometheusExporter({ preventServerStart: true });
  const expected = settings.prometheusToken === undefined ? undefined : digest(settings.prometheusToken);
  const answer: RequestHandler = (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (expected !== undefined && !bearerMatches(req.headers.authorization, expected)) {
      res
        .writeHead(401, {
          'www-authenticate': 'Bearer realm="metrics"',
          'content-type': 'text/plain; charset=utf-8',
          'cache-control': 'no-store',
        })
        .end('a bearer token is required\n');
      return;
    }
    res.setHeader('cache-control', 'no-store');
    reader.getMetricsRequestHandler(req, res);
  };
  let server: Server | undefined;
  return {
    reader,
    answer,
    async start() {
      if (settings.prometheus !== 'own-port') return undefined;
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        if (pathOf(req.url) === METRICS_PATH) answer(req, res);
        else res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      });
      return listenOn(server, settings.prometheusPort, settings.prometheusHost, {
        port: 'the "telemetry.prometheusPort" setting',
        host: 'the "telemetry.prometheusHost" setting',
      });
    },
    async close() {
      if (server !== undefined) {
        server.closeAllConnections();
        await closeServer(server);
      }
    },
  };
}

const pathOf = (url: string | undefined) => (url ?? '/').split('?')[0];

/**
 * `handler`, with `{basePath}/metrics` answered by `endpoint` (`issuer-port`).
 *
 * @example
 * ```ts
 * const served = withMetricsPath(handler, config.basePath, endpoint);
 * ```
 */
export function withMetricsPath(
  handler: RequestHandler,
  basePath: string,
  endpoint: PrometheusEndpoint,
): RequestHandler {
  const path = `${basePath}${METRICS_PATH}`;
  return (req, res) => {
    if (pathOf(req.url) === path) endpoint.answer(req, res);
    else handler(req, res);
  };
}
