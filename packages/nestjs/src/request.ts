/**
 * The request as core sees it, from each platform Nest runs on. `url` (for DPoP's `htu`) and the TLS
 * client certificate are getters, read only when a sender-constrained token needs them. The members
 * read are the same the `@gatehouse/express` and `@gatehouse/fastify` adapters read, so the answers
 * are identical.
 *
 * @module
 */
import type { RequestLike } from '@gatehouse/core';
import { type NodeIncoming, nodeRequestLike } from '@gatehouse/core/node';

/** What is read of an Express 5 request (Nest's `@nestjs/platform-express`). */
interface ExpressRequest extends NodeIncoming {
  readonly method: string;
  readonly query: RequestLike['query'];
  readonly body: unknown;
  /** Follows Express' "trust proxy" setting, as `host` does. */
  readonly protocol: string;
  readonly host: string | undefined;
  readonly originalUrl: string;
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
  readonly raw: NodeIncoming;
}

/** Build core's view of a platform request; `origin` is the adapter's `origin` option. */
export type ToRequestLike = (request: never, origin: string | undefined) => RequestLike;

const fromExpress = (req: ExpressRequest, origin: string | undefined): RequestLike =>
  nodeRequestLike(req, {
    origin,
    query: req.query,
    body: req.body,
    location: () => ({ protocol: req.protocol, host: req.host, target: req.originalUrl }),
  });

const fromFastify = (request: FastifyRequest, origin: string | undefined): RequestLike =>
  nodeRequestLike(request.raw, {
    origin,
    headers: request.headers,
    query: request.query as RequestLike['query'],
    body: request.body,
    location: () => ({ protocol: request.protocol, host: request.host, target: request.url }),
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
