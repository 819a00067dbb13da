/**
 * A loopback authorization server for core's introspection tests: issuer metadata at
 * `{origin}/oidc/.well-known/openid-configuration`, a JWKS, and an RFC 7662 endpoint at
 * `{origin}/oidc/token/introspection` whose answer each test programs. Every introspection request is
 * recorded (headers and form parameters) so tests can check what was sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Handler, startServer, type TestServer } from './http-server.js';

/** One introspection request as the server received it. */
export interface SeenRequest {
  readonly method: string;
  readonly headers: IncomingMessage['headers'];
  readonly params: URLSearchParams;
}

/** What the endpoint answers for a request: a JSON body, or a custom reply. */
export type Answer = Record<string, unknown> | ((req: SeenRequest, res: ServerResponse) => void);

export interface IntrospectionServer {
  readonly server: TestServer;
  /** `{origin}/oidc` */
  readonly issuer: string;
  /** `{origin}/oidc/token/introspection` */
  readonly endpoint: string;
  readonly seen: SeenRequest[];
  /** Set the endpoint's answer (default `{ active: false }`). */
  answer(answer: Answer): void;
  /** Replace the metadata document (default: issuer, jwks_uri and introspection_endpoint). */
  metadata(extra: Record<string, unknown>): void;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/** Start the server; `jwks` is served at `{origin}/oidc/jwks`. */
export async function startIntrospectionServer(jwks: unknown = { keys: [] }): Promise<IntrospectionServer> {
  const server = await startServer();
  const issuer = `${server.origin}/oidc`;
  const endpoint = `${issuer}/token/introspection`;
  const seen: SeenRequest[] = [];
  let answer: Answer = { active: false };
  let meta: Record<string, unknown> = {
    issuer,
    jwks_uri: `${issuer}/jwks`,
    introspection_endpoint: endpoint,
  };
  const introspect: Handler = (req, res) => {
    void readBody(req).then((text) => {
      const request = { method: req.method ?? '', headers: req.headers, params: new URLSearchParams(text) };
      seen.push(request);
      if (typeof answer === 'function') answer(request, res);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  };
  server.route('/oidc/token/introspection', introspect);
  server.route('/oidc/jwks', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  server.route('/oidc/.well-known/openid-configuration', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(meta));
  });
  return {
    server,
    issuer,
    endpoint,
    seen,
    answer: (next) => {
      answer = next;
    },
    metadata: (extra) => {
      meta = { ...meta, ...extra };
    },
    close: () => server.close(),
  };
}
