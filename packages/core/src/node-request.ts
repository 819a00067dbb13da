/**
 * The request as core sees it, read from Node's `IncomingMessage`: the one view every Node adapter
 * (`@gatehouse/express`, `-fastify`, `-koa`, `-nestjs`, and `@gatehouse/hono` on `@hono/node-server`)
 * hands to `verifier.authenticate()`. Headers and raw headers are the message's own (no copy, no
 * WHATWG `Headers`); the URL a DPoP proof's `htu` is compared with and the TLS client certificate are
 * getters, computed only when a sender-constrained token needs them.
 *
 * Node build only: it is exported by `@gatehouse/core/node` (and `@gatehouse/core` under the `node`
 * condition), never reachable from the web build's import graph.
 *
 * @module
 */
import { peerCertificate, requestUrl } from './request-binding.js';
import type { RequestLike } from './types.js';

/** The part of Node's `IncomingMessage` that is read. */
export interface NodeIncoming {
  readonly headers: RequestLike['headers'];
  readonly rawHeaders: readonly string[];
  readonly method?: string | undefined;
  /** The request-target as received (origin-form or absolute-form). */
  readonly url?: string | undefined;
  /** The connection: a `TLSSocket` holds the client certificate. */
  readonly socket?: unknown;
}

/** Where the client addressed the request, as the framework reports it. */
export interface NodeRequestLocation {
  /** `http` or `https` (a framework applies its trust-proxy setting). */
  readonly protocol: string;
  /** `host[:port]`, or `undefined` when none is known. */
  readonly host: string | undefined;
  /** The request-target: `/path?query`, or an absolute-form URI. */
  readonly target: string;
}

/** How an adapter completes the view of an `IncomingMessage`. */
export interface NodeRequestOptions {
  /** The adapter's `origin` option: when set, it is the URL's scheme and host. */
  readonly origin?: string | undefined;
  /**
   * The framework's view of scheme, host and target, called only when the URL is read. Default: the
   * socket's scheme, the `Host` header and `incoming.url`.
   */
  readonly location?: (() => NodeRequestLocation) | undefined;
  /** The framework's header map, when it differs from the message's (Fastify can add headers). */
  readonly headers?: RequestLike['headers'] | undefined;
  /** The framework's parsed query. Default: `incoming.url`'s query, parsed when read. */
  readonly query?: RequestLike['query'];
  /** The framework's parsed body (read for the form-body token source). */
  readonly body?: unknown;
}

/** Stands in for the host when only the query of an origin-form target is parsed. */
const NO_HOST = 'http://host.invalid';

/**
 * One class, so every view shares its getters through the prototype: building one is a few field
 * writes, which is most of what an adapter does per request once a token is cached.
 */
class NodeRequestView implements RequestLike {
  readonly headers: RequestLike['headers'];
  readonly rawHeaders: readonly string[];
  readonly method: string | undefined;
  readonly body: unknown;
  readonly #incoming: NodeIncoming;
  readonly #options: NodeRequestOptions;

  constructor(incoming: NodeIncoming, options: NodeRequestOptions) {
    this.headers = options.headers ?? incoming.headers;
    this.rawHeaders = incoming.rawHeaders;
    this.method = incoming.method;
    this.body = options.body;
    this.#incoming = incoming;
    this.#options = options;
  }

  get query(): RequestLike['query'] {
    if (this.#options.query !== undefined) return this.#options.query;
    // Read on every request (a token in the query too is refused): no URL is parsed without a query.
    const target = this.#incoming.url;
    return target?.includes('?') === true ? URL.parse(target, NO_HOST)?.searchParams : undefined;
  }

  get url(): string | undefined {
    const { protocol, host, target } = this.#options.location?.() ?? this.#location();
    return requestUrl(this.#options.origin, protocol, host, target);
  }

  get clientCertificate(): Uint8Array | undefined {
    return peerCertificate(this.#incoming.socket);
  }

  #location(): NodeRequestLocation {
    const host = this.headers.host;
    const encrypted = (this.#incoming.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
    return {
      protocol: encrypted ? 'https' : 'http',
      host: typeof host === 'string' ? host : undefined,
      target: this.#incoming.url ?? '/',
    };
  }
}

/**
 * Core's view of a Node request, for `verifier.authenticate()`: shared by every Node adapter so they
 * all read a request the same way. Node build only (`@gatehouse/core/node`).
 *
 * @example
 * ```ts
 * import { nodeRequestLike } from '@gatehouse/core/node';
 *
 * // Express: its trust-proxy setting decides protocol and host.
 * const auth = await verifier.authenticate(
 *   nodeRequestLike(req, {
 *     origin,
 *     query: req.query,
 *     body: req.body,
 *     location: () => ({ protocol: req.protocol, host: req.host, target: req.originalUrl }),
 *   }),
 * );
 * // A plain `node:http` handler: scheme from the socket, host from the Host header.
 * await verifier.authenticate(nodeRequestLike(incomingMessage));
 * ```
 */
export function nodeRequestLike(incoming: NodeIncoming, options: NodeRequestOptions = {}): RequestLike {
  return new NodeRequestView(incoming, options);
}
