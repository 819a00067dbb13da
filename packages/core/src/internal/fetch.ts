/**
 * Fetching discovery documents and key sets with the limits a resource server needs: a real abort
 * timeout, no redirects followed, a response size cap enforced while streaming, `https:` only (loopback
 * `http:` aside), and JSON that must parse. Failures are {@link FetchFailure}s with a short cause for
 * diagnostics; they never reach clients.
 *
 * The timeout is enforced here as well as through the `signal`: a custom `fetch` that ignores the
 * signal (or a body stream that never ends) still fails after `timeout` ms, so a shared key-set fetch
 * can never hang every request behind it.
 *
 * @module
 */
import type { KeySetErrorCode } from '../errors.js';
import { isAllowedUrl } from '../options.js';

/** Settings for {@link fetchJson}. */
export interface FetchLimits {
  readonly fetch: typeof fetch;
  readonly timeout: number;
  readonly maxResponseBytes: number;
  readonly allowInsecureHttp: boolean;
}

/** The codes of a failed metadata or key-set request: every {@link KeySetErrorCode} but the audience's. */
export type FetchFailureCode = Exclude<KeySetErrorCode, 'audience_mismatch'>;

/** Why a metadata or key-set request failed: a short cause, its code, and the URL concerned. */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
  readonly code: FetchFailureCode;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The URL requested, when there was one. */
  readonly url: string | undefined;
  constructor(code: FetchFailureCode, message: string, url?: URL | string, status?: number) {
    super(message);
    this.code = code;
    this.url = url === undefined ? undefined : String(url);
    this.status = status;
  }
}

/** TLS failures undici reports in `cause.code`: a certificate the machine does not trust, or the wrong name. */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|HOSTNAME/;

/** The failure of a request that got no response, classified from Node's error codes. */
function networkFailure(error: unknown, url: URL, timeout: number): FetchFailure {
  if (isTimeout(error)) return new FetchFailure('timeout', `no response within ${timeout} ms`, url);
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | undefined)?.cause;
  const code = String(cause?.code ?? cause?.errors?.[0]?.code ?? (error as { code?: unknown })?.code ?? '');
  if (TLS_CODES.test(code)) return new FetchFailure('tls', `TLS error (${code})`, url);
  if (code === 'ENOTFOUND')
    return new FetchFailure('host_not_found', 'the host name cannot be resolved', url);
  return new FetchFailure('connection_failed', `request failed${code ? ` (${code})` : ''}`, url);
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts, whichever comes first. */
function beforeAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Release the connection of a response that is not read. */
const discard = (response: Response): void => {
  response.body?.cancel().catch(() => {});
};

/** Errors of a request whose reused connection was reset or closed before any response arrived. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

const isStaleConnection = (error: unknown): boolean => {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && STALE_CONNECTION_CODES.has(code);
};

const isTimeout = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');

async function readCapped(response: Response, max: number, signal: AbortSignal): Promise<string> {
  const length = Number(response.headers.get('content-length'));
  if (Number.isFinite(length) && length > max)
    throw new FetchFailure('too_large', `response larger than ${max} bytes`, response.url);
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await beforeAbort(reader.read(), signal);
    } catch (error) {
      void reader.cancel().catch(() => {});
      throw error;
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      void reader.cancel().catch(() => {});
      throw new FetchFailure('too_large', `response larger than ${max} bytes`, response.url);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(body);
}

/**
 * What {@link fetchText} sends besides the URL: a GET by default.
 *
 * @example
 * ```ts
 * const init: FetchInit = { method: 'POST', headers: { accept: 'application/json' }, body: form };
 * ```
 */
export interface FetchInit {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: URLSearchParams;
}

/**
 * A response body read within the limits, with its media type (lower case, without parameters).
 *
 * @example
 * ```ts
 * const { text, type }: FetchedText = await fetchText(url, limits);
 * ```
 */
export interface FetchedText {
  readonly text: string;
  readonly type: string;
}

/** GET `url` and parse its JSON body within `limits`. Throws {@link FetchFailure}. */
export async function fetchJson(
  url: URL,
  limits: FetchLimits,
  accept = 'application/json',
): Promise<unknown> {
  const { text } = await fetchText(url, limits, { headers: { accept } });
  try {
    return JSON.parse(text);
  } catch {
    throw new FetchFailure('not_json', 'the response is not JSON', url, 200);
  }
}

/**
 * Send a request to `url` within `limits` (timeout, no redirects, size cap) and read the body of its
 * 200 response. Throws {@link FetchFailure}. A POST (introspection) is retried on a stale connection
 * like a GET: the server received nothing, and an introspection changes nothing anyway.
 *
 * @example
 * ```ts
 * const { text, type } = await fetchText(endpoint, limits, { method: 'POST', headers, body });
 * ```
 */
export async function fetchText(url: URL, limits: FetchLimits, init: FetchInit = {}): Promise<FetchedText> {
  if (!isAllowedUrl(url, limits.allowInsecureHttp))
    throw new FetchFailure('insecure_url', 'the URL must use https: (http: only on loopback)', url);
  const signal = AbortSignal.timeout(limits.timeout);
  const { method = 'GET', headers, body } = init;
  const send = async (): Promise<Response> => {
    const request = Promise.resolve().then(() =>
      limits.fetch(url.href, {
        method,
        ...(headers === undefined ? {} : { headers }),
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal,
      }),
    );
    try {
      return await beforeAbort(request, signal);
    } catch (error) {
      // A response arriving after the deadline is discarded, so its connection is released.
      if (signal.aborted) request.then(discard, () => {});
      throw error;
    }
  };
  let response: Response;
  try {
    response = await send().catch((error: unknown) => {
      // A kept-alive connection the server closed while idle fails before any response: the GET is
      // idempotent, so it is sent once more (on a new connection) within the same deadline.
      if (signal.aborted || !isStaleConnection(error)) throw error;
      return send();
    });
  } catch (error) {
    throw networkFailure(error, url, limits.timeout);
  }
  try {
    // `redirected` catches a custom fetch that followed a redirect despite `redirect: 'manual'`.
    if (
      response.redirected ||
      (response.status >= 300 && response.status < 400) ||
      response.type === 'opaqueredirect'
    ) {
      throw new FetchFailure(
        'redirect',
        `HTTP ${response.status} redirect (redirects are not followed)`,
        url,
        response.status,
      );
    }
    if (response.status !== 200) {
      const code = response.status >= 500 || response.status === 429 ? 'server_error' : 'http_error';
      throw new FetchFailure(code, `HTTP ${response.status}`, url, response.status);
    }
    const text = await readCapped(response, limits.maxResponseBytes, signal);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    return { text, type };
  } catch (error) {
    // Not awaited: a cancel may never settle (mocked bodies in msw), and nothing depends on it.
    if (!response.bodyUsed && response.body?.locked !== true) void response.body?.cancel().catch(() => {});
    if (error instanceof FetchFailure) throw error;
    if (isTimeout(error)) throw new FetchFailure('timeout', `no response within ${limits.timeout} ms`, url);
    throw new FetchFailure('connection_failed', 'reading the response failed', url);
  }
}
