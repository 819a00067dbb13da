/**
 * Shared test helpers: a demo world on free ports, and a record of every credential that crossed
 * `fetch` during a test (tokens in requests and answers, secrets in Basic headers), to prove none of
 * them was printed or logged.
 */
import { startWorld, type World } from '../src/world.ts';

/** Start the demo's world on free loopback ports. */
export function startTestWorld(): Promise<World> {
  return startWorld({ ports: { issuer: 0, api: 0, backend: 0, console: 0 } });
}

/** Wrap the global `fetch` and collect every credential value it carries; `restore()` undoes it. */
export function recordCredentials(): { readonly values: Set<string>; restore(): void } {
  const original = globalThis.fetch;
  const values = new Set<string>();
  const keep = (value: unknown) => {
    if (typeof value === 'string' && value.length >= 16) values.add(value);
  };
  const fromForm = (body: unknown) => {
    if (typeof body !== 'string' && !(body instanceof URLSearchParams)) return;
    const params = new URLSearchParams(body.toString());
    for (const name of [
      'code',
      'code_verifier',
      'subject_token',
      'actor_token',
      'refresh_token',
      'token',
      'password',
    ])
      keep(params.get(name) ?? undefined);
  };
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const authorization = request.headers.get('authorization') ?? '';
    const [scheme, credential] = authorization.split(' ');
    if (scheme === 'Bearer') keep(credential);
    if (scheme === 'Basic' && credential !== undefined) {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      keep(decodeURIComponent(decoded.slice(decoded.indexOf(':') + 1)));
    }
    if (init?.body !== undefined) fromForm(init.body);
    const location = request.url.includes('?') ? new URL(request.url).searchParams.get('code') : null;
    keep(location ?? undefined);
    const response = await original(input, init);
    const text = await response.clone().text();
    if (response.headers.get('content-type')?.includes('json')) {
      try {
        const json = JSON.parse(text) as Record<string, unknown>;
        for (const name of [
          'access_token',
          'refresh_token',
          'id_token',
          'subjectToken',
          'value',
          'clientSecret',
        ])
          keep(json[name]);
      } catch {
        // not JSON after all
      }
    }
    const redirect = response.headers.get('location');
    if (redirect !== null) keep(new URL(redirect, request.url).searchParams.get('code') ?? undefined);
    return response;
  };
  return {
    values,
    restore: () => {
      globalThis.fetch = original;
    },
  };
}
