/**
 * An in-memory `fetch` that answers a test issuer's discovery and JWKS requests without msw and without
 * a socket. Give it to a verifier built with a custom `fetch`; any other URL rejects like a network error.
 *
 * @module
 */
import { type Endpoints, type RouteContent, route } from './internal/routes.js';

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Create the in-memory `fetch` of one issuer. `endpoints` is read on every call, so it follows the issuer
 * when `listen()` changes its URLs. A simulated `timeout` outage leaves the request pending until its
 * `signal` aborts.
 *
 * @example
 * ```ts
 * const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
 * ```
 */
export function createInMemoryFetch(endpoints: () => Endpoints, content: RouteContent): typeof fetch {
  return async function inMemoryFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const signal = init?.signal ?? request?.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    const url = new URL(request?.url ?? String(input));
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();

    const result = route(endpoints(), content, method, url);
    if (result === undefined) {
      throw new TypeError(`fetch failed: ${url.origin}${url.pathname} is not served by the test issuer`);
    }
    if (result.kind === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(abortReason(signal)), { once: true });
      });
    }
    return new Response(method === 'HEAD' ? null : result.body, {
      status: result.status,
      headers: result.headers,
    });
  } as typeof fetch;
}
