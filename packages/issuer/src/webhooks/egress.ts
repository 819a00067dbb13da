/**
 * One delivery attempt on the wire (catalogue F13–F15): the endpoint's host name is resolved here, once,
 * every address it resolves to is checked against the {@link TargetPolicy}, and the connection is made
 * to those checked addresses (a `lookup` that answers with them), so a name that resolves to a public
 * address when checked and to `169.254.169.254` a moment later (DNS rebinding) still reaches only the
 * checked one. TLS still verifies the certificate against the name (SNI and `Host` are the name).
 *
 * Redirects are not followed (a 3xx is a failed attempt). Only the response head is read (at most
 * `maxResponseHeaderBytes`), never the body; the whole attempt, name resolution included, has one
 * deadline. A failure is recorded with a generic cause — `connection failed`, `timeout`, `tls`,
 * `http <status>` or `address not allowed` — never the low-level error code or message, so that the
 * deliveries listing is no port or protocol scanner for whoever can register endpoints. The low-level
 * code (`ECONNREFUSED` …) goes to the issuer's log only, for its operator.
 *
 * Written on `node:http`/`node:https` rather than `fetch`: `fetch` takes no `lookup`, so it cannot be
 * made to connect to the address that was checked (undici's own `Agent` could, as a further dependency).
 *
 * @module
 */
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bareHost } from '../internal/ip.js';
import type { TargetPolicy } from './targets.js';

/**
 * One address a host name resolved to.
 *
 * @example
 * ```ts
 * const address: ResolvedAddress = { address: '93.184.215.14', family: 4 };
 * ```
 */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/**
 * Resolves a host name to every address it has (the delivery loop's is {@link systemResolver}; tests
 * give their own, so no name is looked up outside the test).
 *
 * @example
 * ```ts
 * const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
 * ```
 */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/**
 * The operating system's resolver (`getaddrinfo`, as every other connection of the process).
 *
 * @example
 * ```ts
 * await systemResolver('localhost'); // [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }]
 * ```
 */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/**
 * The generic cause of a failed attempt, as recorded (`lastError`).
 *
 * @example
 * ```ts
 * const cause: DeliveryCause = 'http 503';
 * ```
 */
export type DeliveryCause =
  | 'connection failed'
  | 'timeout'
  | 'tls'
  | 'address not allowed'
  | `http ${number}`;

/**
 * How an attempt went: `delivered` (a 2xx), `failed` with its cause, or `stopped` (cut short by the
 * issuer closing).
 *
 * @example
 * ```ts
 * const result: AttemptResult = { outcome: 'failed', status: 500, cause: 'http 500' };
 * ```
 */
export type AttemptResult =
  | { readonly outcome: 'delivered'; readonly status: number }
  | {
      readonly outcome: 'failed';
      readonly status: number | null;
      readonly cause: DeliveryCause;
      /** The low-level error code, for the operator's log only (never recorded or listed). */
      readonly code?: string | undefined;
    }
  | { readonly outcome: 'stopped' };

/**
 * What {@link postWebhook} needs.
 *
 * @example
 * ```ts
 * const input: PostInput = { url, headers, body, policy, resolve: systemResolver, timeout: 10_000, stop: controller.signal, maxResponseHeaderBytes: 8_192 };
 * ```
 */
export interface PostInput {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly policy: TargetPolicy;
  readonly resolve: Resolver;
  /** Milliseconds the whole attempt may take. */
  readonly timeout: number;
  /** Aborted when the issuer closes. */
  readonly stop: AbortSignal;
  readonly maxResponseHeaderBytes: number;
}

/** TLS failures by their code, for the rare one that happens before `connect` is seen. */
const TLS_CODE =
  /^(?:ERR_SSL_|ERR_TLS_|EPROTO$|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH$)/;

/** A low-level code fit for the log: upper-case letters, digits and `_` only. */
const logCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
};

/** A `lookup` that answers with the checked addresses only (never asks the resolver again). */
const pinned =
  (addresses: readonly ResolvedAddress[]): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all) (callback as (err: null, all: ResolvedAddress[]) => void)(null, [...addresses]);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };

/** `promise`, or a rejection once `signal` aborts (a lookup cannot be cancelled; its answer is dropped). */
const abortable = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });

/**
 * POST `body` to `url` under the rules above; never throws.
 *
 * @example
 * ```ts
 * const result = await postWebhook({ url, headers, body, policy, resolve: systemResolver, timeout: 10_000, stop, maxResponseHeaderBytes: 8_192 });
 * if (result.outcome === 'failed') console.log(result.cause); // 'connection failed'
 * ```
 */
export async function postWebhook(input: PostInput): Promise<AttemptResult> {
  const url = new URL(input.url);
  const host = bareHost(url.hostname);
  const deadline = AbortSignal.timeout(input.timeout);
  const signal = AbortSignal.any([deadline, input.stop]);
  const failed = (cause: DeliveryCause, status: number | null = null, code?: string): AttemptResult =>
    input.stop.aborted
      ? { outcome: 'stopped' }
      : deadline.aborted
        ? { outcome: 'failed', status: null, cause: 'timeout' }
        : { outcome: 'failed', status, cause, code };

  let addresses: readonly ResolvedAddress[];
  const family = isIP(host);
  if (family !== 0) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await abortable(input.resolve(host), signal);
    } catch (err) {
      return failed('connection failed', null, logCode(err));
    }
  }
  if (addresses.length === 0) return failed('connection failed');
  if (addresses.some(({ address }) => input.policy.checkAddress(host, address) !== undefined))
    return failed('address not allowed');

  const https = url.protocol === 'https:';
  return new Promise<AttemptResult>((resolve) => {
    // Where a failure happened: before the TCP connection (connection failed), in the TLS handshake (tls).
    let handshaking = false;
    const req = (https ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
      agent: false,
      lookup: pinned(addresses),
      signal,
      maxHeaderSize: input.maxResponseHeaderBytes,
    });
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        handshaking = https;
      });
      socket.once('secureConnect', () => {
        handshaking = false;
      });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      // The head is all the issuer needs: the body is never read, the connection is dropped.
      res.destroy();
      req.destroy();
      resolve(
        status >= 200 && status < 300 ? { outcome: 'delivered', status } : failed(`http ${status}`, status),
      );
    });
    req.on('error', (err) => {
      const code = logCode(err);
      resolve(failed(handshaking || TLS_CODE.test(code ?? '') ? 'tls' : 'connection failed', null, code));
    });
    req.end(input.body);
  });
}
