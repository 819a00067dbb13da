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
import { isAllowedUrl } from '../options.js';

/** Settings for {@link fetchJson}. */
export interface FetchLimits {
  readonly fetch: typeof fetch;
  readonly timeout: number;
  readonly maxResponseBytes: number;
  readonly allowInsecureHttp: boolean;
}

/** Why a metadata or key-set request failed. */
export class FetchFailure extends Error {
  override readonly name = 'FetchFailure';
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
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

const isTimeout = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');

async function readCapped(response: Response, max: number, signal: AbortSignal): Promise<string> {
  const length = Number(response.headers.get('content-length'));
  if (Number.isFinite(length) && length > max) throw new FetchFailure(`response larger than ${max} bytes`);
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
      throw new FetchFailure(`response larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** GET `url` and parse its JSON body within `limits`. Throws {@link FetchFailure}. */
export async function fetchJson(
  url: URL,
  limits: FetchLimits,
  accept = 'application/json',
): Promise<unknown> {
  if (!isAllowedUrl(url, limits.allowInsecureHttp)) throw new FetchFailure('URL must use https:');
  const signal = AbortSignal.timeout(limits.timeout);
  const request = Promise.resolve().then(() =>
    limits.fetch(url.href, { method: 'GET', headers: { accept }, redirect: 'manual', signal }),
  );
  let response: Response;
  try {
    response = await beforeAbort(request, signal);
  } catch (error) {
    // A response arriving after the deadline is discarded, so its connection is released.
    if (signal.aborted) request.then(discard, () => {});
    throw new FetchFailure(isTimeout(error) ? `no response within ${limits.timeout} ms` : 'request failed');
  }
  try {
    // `redirected` catches a custom fetch that followed a redirect despite `redirect: 'manual'`.
    if (
      response.redirected ||
      (response.status >= 300 && response.status < 400) ||
      response.type === 'opaqueredirect'
    ) {
      throw new FetchFailure('redirects are not followed', response.status);
    }
    if (response.status !== 200) throw new FetchFailure(`HTTP ${response.status}`, response.status);
    const text = await readCapped(response, limits.maxResponseBytes, signal);
    try {
      return JSON.parse(text);
    } catch {
      throw new FetchFailure('response is not JSON', response.status);
    }
  } catch (error) {
    // Not awaited: a cancel may never settle (mocked bodies in msw), and nothing depends on it.
    if (!response.bodyUsed && response.body?.locked !== true) void response.body?.cancel().catch(() => {});
    if (error instanceof FetchFailure) throw error;
    throw new FetchFailure(
      isTimeout(error) ? `no response within ${limits.timeout} ms` : 'reading the response failed',
    );
  }
}
