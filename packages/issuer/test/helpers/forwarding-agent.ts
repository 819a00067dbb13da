/**
 * A cookie-jar agent (see agent.ts) that sends every request, whatever URL it names, to one loopback
 * server, with the `Host` and forwarding headers it is told to send: a client reaching the issuer at
 * its public URL through a proxy that passes the client's own headers on. `fetch` cannot do this (it
 * always writes `Host` itself), so requests go through `node:http`.
 */
import { request } from 'node:http';
import { Agent, type AgentResponse } from './agent.js';

/** Options of one raw request. */
export interface RawRequest {
  readonly method?: string;
  /** The request target as sent: a path, or an absolute URL (absolute-form, as to a proxy). */
  readonly target: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One raw HTTP/1.1 request to `origin` (an `http://127.0.0.1:port` address). */
export function rawRequest(
  origin: string,
  options: RawRequest,
): Promise<{ status: number; headers: Headers; text: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: options.method ?? 'GET',
        path: options.target,
        headers: options.headers,
        setHost: options.headers?.host === undefined,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            for (const item of [value ?? []].flat()) headers.append(name, item);
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An {@link Agent} whose requests all reach `origin`, carrying `headers` (e.g. a forged `Host`). */
export class ForwardingAgent extends Agent {
  /** Every response received, in order. */
  readonly responses: AgentResponse[] = [];
  readonly #origin: string;

  constructor(origin: string, headers: Record<string, string>) {
    super();
    this.#origin = origin;
    this.headers = headers;
  }

  override async request(url: string, init: RequestInit = {}): Promise<AgentResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const target = new URL(url);
    const res = await rawRequest(this.#origin, {
      method: init.method ?? 'GET',
      target: `${target.pathname}${target.search}`,
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(init.headers as Record<string, string> | undefined),
        ...this.headers,
      },
      body: typeof init.body === 'string' ? init.body : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.get('location') ?? undefined;
    const response: AgentResponse = {
      status: res.status,
      url,
      location: location === undefined ? undefined : new URL(location, url).href,
      headers: res.headers,
      text: res.text,
    };
    this.responses.push(response);
    return response;
  }
}
