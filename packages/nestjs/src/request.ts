/**
 * The request as core sees it, from each platform Nest runs on. `url` (for DPoP's `htu`) and the TLS
 * client certificate are getters, read only when a sender-constrained token needs them. The members
 * read are the same the `@gatehouse/express` and `@gatehouse/fastify` adapters read, so the answers
 * are identical.
 *
 * @module
 */
import { peerCertificate, type RequestLike, requestUrl } from '@gatehouse/core';

/** What is read of an Express 5 request (Nest's `@nestjs/platform-express`). */
interface ExpressRequest {
  readonly headers: RequestLike['headers'];
  readonly rawHeaders: readonly string[];
  readonly method: string;
  readonly query: RequestLike['query'];
  readonly body: unknown;
  /** Follows Express' "trust proxy" setting, as `host` does. */
  readonly protocol: string;
  readonly host: string | undefined;
  readonly originalUrl: string;
  readonly socket: unknown;
}

/** What is read of a Fastify 5 request (Nest's `@nestjs/platform-fastify`). */
interface FastifyRequest {
  readonly headers: RequestLike['headers'];
  readonly method: string;
  readonly query: unknown;
  readonly body: unknown;
  /** Follows Fastify's `trustProxy` setting, as `host` does. */
  readonly protocol: string;
  readonly host: string | undefined;
  readonly url: string;
  readonly raw: { readonly rawHeaders: readonly string[]; readonly socket: unknown };
}

/** Build core's view of a platform request; `origin` is the adapter's `origin` option. */
export type ToRequestLike = (request: never, origin: string | undefined) => RequestLike;

const fromExpress = (req: ExpressRequest, origin: string | undefined): RequestLike => ({
  headers: req.headers,
  rawHeaders: req.rawHeaders,
  method: req.method,
  query: req.query,
  body: req.body,
  get url() {
    return requestUrl(origin, req.protocol, req.host, req.originalUrl);
  },
  get clientCertificate() {
    return peerCertificate(req.socket);
  },
});

const fromFastify = (request: FastifyRequest, origin: string | undefined): RequestLike => ({
  headers: request.headers,
  rawHeaders: request.raw.rawHeaders,
  method: request.method,
  query: request.query as RequestLike['query'],
  body: request.body,
  get url() {
    return requestUrl(origin, request.protocol, request.host, request.url);
  },
  get clientCertificate() {
    return peerCertificate(request.raw.socket);
  },
});

/**
 * The builder for a Nest HTTP adapter type (`httpAdapter.getType()`); throws for a platform the
 * module does not support.
 *
 * @example
 * ```ts
 * const toRequestLike = requestBuilder(httpAdapterHost.httpAdapter.getType());
 * await verifier.authenticate(toRequestLike(request as never, origin));
 * ```
 */
export function requestBuilder(platform: string): ToRequestLike {
  if (platform === 'express') return fromExpress as ToRequestLike;
  if (platform === 'fastify') return fromFastify as ToRequestLike;
  throw new Error(`@gatehouse/nestjs supports the express and fastify platforms, not "${platform}"`);
}
