/**
 * A raw HTTP client for the suite. `fetch` cannot send two `Authorization` headers (it joins them) or
 * show Node's own 431, so requests go through `node:http` with every header exactly as written.
 *
 * @module
 */
import { request as httpRequest } from 'node:http';

/** One request of the table. */
export interface TestRequest {
  readonly method?: 'GET' | 'POST' | 'HEAD';
  /** Path and query, e.g. `/me?access_token=…`. */
  readonly path: string;
  /** Header values; an array sends the header once per value. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** A form body, sent as `application/x-www-form-urlencoded`. */
  readonly form?: Readonly<Record<string, string>>;
}

/** The parts of a response the adapters must agree on. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Send `req` to the app at `base` and read the whole response. */
export function send(base: string, req: TestRequest): Promise<TestResponse> {
  const body =
    req.form === undefined ? undefined : new URLSearchParams(req.form as Record<string, string>).toString();
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name] = value as string | string[];
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      new URL(req.path, base),
      { method: req.method ?? (body === undefined ? 'GET' : 'POST'), headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
