/**
 * A raw HTTP client for the suite. `fetch` cannot send two `Authorization` headers (it joins them),
 * override `Host`, present a TLS client certificate or show Node's own 431, so requests go through
 * `node:http` / `node:https` with every header exactly as written.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';

/** What a request's DPoP proof is computed from, at send time. */
export interface ProofContext {
  /** The absolute URL the request is sent to (`http://127.0.0.1:PORT/path?query`). */
  readonly url: string;
  /** The deployment's current DPoP nonce (`verifier.dpopNonce()`), when nonces are on. */
  readonly nonce: string | undefined;
}

/** A TLS client certificate and its key, PEM (a `TestCertificate` from `@gatehouse/testing` fits). */
export interface ClientCertificate {
  readonly certificate: string;
  readonly privateKey: string;
}

/** One request of the table. */
export interface TestRequest {
  readonly method?: 'GET' | 'POST' | 'HEAD';
  /** Path and query, e.g. `/me?access_token=…`. */
  readonly path: string;
  /**
   * The request-target written on the request line instead of `path`, e.g. the absolute-form
   * `http://evil.test/me` (RFC 9112 §3.2.2); the request still goes to the app, and `path` still makes
   * the proof's URL.
   */
  readonly target?: string;
  /** Header values; an array sends the header once per value. `host` replaces the one Node would send. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /** A form body, sent as `application/x-www-form-urlencoded`. */
  readonly form?: Readonly<Record<string, string>>;
  /**
   * The `DPoP` header, computed once when the request is sent, from the URL actually used and the
   * deployment's nonce; an array sends one header line per value.
   */
  readonly dpop?: (ctx: ProofContext) => string | readonly string[];
  /** Send the identical request (same proof) twice; the first answer is ignored. */
  readonly replay?: boolean;
  /** The TLS client certificate to present (an `https` app only). */
  readonly certificate?: ClientCertificate;
  /**
   * Send an HTTP/1.0 request over a raw socket, with no `Host` header unless `headers.host` is given
   * (Node's client always speaks HTTP/1.1 and sends one). An `http` app only.
   */
  readonly http10?: boolean;
}

/** The parts of a response the adapters must agree on. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** Where a request is sent: the deployment's nonce and the CA its `https` server certificate comes from. */
export interface SendContext {
  readonly nonce?: string | undefined;
  /** PEM of the authority to trust for an `https` app. */
  readonly ca?: string | undefined;
}

/** The request's headers with its DPoP proof computed for `url`, ready to be sent (again). */
export function prepareHeaders(
  req: TestRequest,
  url: string,
  nonce: string | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name] = value as string | string[];
  if (req.dpop !== undefined) headers.dpop = req.dpop({ url, nonce }) as string | string[];
  return headers;
}

/** Send one prepared request and read the whole response. */
function sendOnce(
  url: URL,
  req: TestRequest,
  headers: Record<string, string | string[]>,
  body: string | undefined,
  ca: string | undefined,
): Promise<TestResponse> {
  const method = req.method ?? (body === undefined ? 'GET' : 'POST');
  const line = req.target === undefined ? {} : { path: req.target };
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
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
    };
    const outgoing =
      url.protocol === 'https:'
        ? httpsRequest(
            url,
            {
              method,
              headers,
              agent: false,
              ...line,
              ca,
              cert: req.certificate?.certificate,
              key: req.certificate?.privateKey,
            },
            onResponse,
          )
        : httpRequest(url, { method, headers, agent: false, ...line }, onResponse);
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Send an HTTP/1.0 request as raw bytes and parse the answer (the server closes the connection after it).
 * Header values are written as given; repeated response headers are joined with `, ` (`set-cookie`
 * kept as a list), as Node does.
 */
function sendHttp10(
  url: URL,
  req: TestRequest,
  headers: Record<string, string | string[]>,
  body: string | undefined,
): Promise<TestResponse> {
  const method = req.method ?? (body === undefined ? 'GET' : 'POST');
  let head = `${method} ${req.target ?? `${url.pathname}${url.search}`} HTTP/1.0\r\n`;
  for (const [name, value] of Object.entries(headers))
    for (const v of Array.isArray(value) ? value : [value]) head += `${name}: ${v}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(`${head}\r\n${body ?? ''}`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const end = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
      const parsed: Record<string, string | string[]> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        const prior = parsed[name];
        if (name === 'set-cookie') parsed[name] = [...((prior as string[] | undefined) ?? []), value];
        else parsed[name] = prior === undefined ? value : `${prior}, ${value}`;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: raw.slice(end + 4) });
    });
  });
}

/** Send `req` to the app at `base` (twice when `req.replay`) and read the whole (last) response. */
export async function send(base: string, req: TestRequest, context: SendContext = {}): Promise<TestResponse> {
  const body =
    req.form === undefined ? undefined : new URLSearchParams(req.form as Record<string, string>).toString();
  const url = new URL(req.path, base);
  const headers = prepareHeaders(req, url.href, context.nonce);
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const once = () =>
    req.http10 === true ? sendHttp10(url, req, headers, body) : sendOnce(url, req, headers, body, context.ca);
  if (req.replay === true) await once();
  return once();
}
