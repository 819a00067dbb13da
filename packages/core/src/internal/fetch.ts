/**
 * Fetching discovery documents and key sets with the limits a resource server needs: a real abort
 * timeout, no redirects followed, a response size cap enforced while streaming, `https:` only (loopback
 * `http:` aside), and JSON that must parse. Failures are {@link FetchFailure}s with a short cause for
 * diagnostics; they never reach clients.
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

async function readCapped(response: Response, max: number): Promise<string> {
  const length = Number(response.headers.get('content-length'));
  if (Number.isFinite(length) && length > max) throw new FetchFailure(`response larger than ${max} bytes`);
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      throw new FetchFailure(`response larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** GET `url` and parse its JSON body within `limits`. Throws {@link FetchFailure}. */
export async function fetchJson(url: URL, limits: FetchLimits, accept = 'application/json'): Promise<unknown> {
  if (!isAllowedUrl(url, limits.allowInsecureHttp)) throw new FetchFailure('URL must use https:');
  let response: Response;
  try {
    response = await limits.fetch(url.href, {
      method: 'GET',
      headers: { accept },
      redirect: 'manual',
      signal: AbortSignal.timeout(limits.timeout),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new FetchFailure(timedOut ? `no response within ${limits.timeout} ms` : 'request failed');
  }
  try {
    if (response.status !== 200) {
      throw new FetchFailure(
        response.status >= 300 && response.status < 400 ? 'redirects are not followed' : `HTTP ${response.status}`,
        response.status,
      );
    }
    const text = await readCapped(response, limits.maxResponseBytes);
    try {
      return JSON.parse(text);
    } catch {
      throw new FetchFailure('response is not JSON', response.status);
    }
  } catch (error) {
    await response.body?.cancel().catch(() => {});
    if (error instanceof FetchFailure) throw error;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new FetchFailure(timedOut ? `no response within ${limits.timeout} ms` : 'reading the response failed');
  }
}
