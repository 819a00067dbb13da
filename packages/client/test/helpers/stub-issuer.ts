/**
 * A minimal authorization server stub on 127.0.0.1 for tests of the requests the client sends: it
 * serves discovery, records every token and revocation request (headers and form body), and answers
 * with whatever the test queued.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A recorded request. */
export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly form: URLSearchParams;
}

/** An answer to send: status and JSON body (or a raw string). */
export interface StubAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface StubIssuer {
  readonly url: string;
  /** The issuer identifier (`{url}/oidc`). */
  readonly issuer: string;
  readonly requests: StubRequest[];
  /** Answer the next token request with this. */
  answerToken(answer: StubAnswer): void;
  /** Replace (or remove, with `undefined`) fields of the discovery document. */
  metadata: Record<string, unknown>;
  /** Delay every answer by this many ms. */
  delay: number;
  close(): Promise<void>;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, answer: StubAnswer): void {
  const raw = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(raw);
}

/** Start a stub authorization server. */
export async function startStubIssuer(): Promise<StubIssuer> {
  const queue: StubAnswer[] = [];
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${url}/oidc`;
  const stub: StubIssuer = {
    url,
    issuer,
    requests: [],
    answerToken: (answer) => {
      queue.push(answer);
    },
    metadata: {
      issuer,
      authorization_endpoint: `${issuer}/auth`,
      token_endpoint: `${issuer}/token`,
      revocation_endpoint: `${issuer}/token/revocation`,
      end_session_endpoint: `${issuer}/session/end`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      authorization_response_iss_parameter_supported: true,
    },
    delay: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  server.on('request', async (req, res) => {
    const path = new URL(req.url ?? '/', url).pathname;
    const form = new URLSearchParams(await read(req));
    if (stub.delay > 0) await new Promise((resolve) => setTimeout(resolve, stub.delay));
    if (path === '/oidc/.well-known/openid-configuration') {
      send(res, { status: 200, body: stub.metadata });
      return;
    }
    stub.requests.push({ method: req.method ?? '', path, headers: req.headers, form });
    if (path === '/oidc/token') {
      send(res, queue.shift() ?? { status: 500, body: { error: 'server_error' } });
      return;
    }
    if (path === '/oidc/token/revocation') {
      res.writeHead(200).end();
      return;
    }
    send(res, { status: 404, body: { error: 'not_found' } });
  });
  return stub;
}
