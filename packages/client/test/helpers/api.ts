/**
 * A real loopback API protected by `@gatehouse/core` (`createVerifier` + `authenticate`), for the
 * client's `fetch()`: it answers 200 with who called, or the verifier's error with its headers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthInfo,
  createVerifier,
  type DpopOptions,
  isAuthError,
  type VerifyOptions,
} from '@gatehouse/core';

/** A started API. */
export interface TestApi {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request's `Authorization` scheme and whether it carried a `DPoP` header, in order. */
  readonly seen: Array<{ scheme: string; proof: boolean; status: number }>;
  close(): Promise<void>;
}

/**
 * Start an API for `audience` trusting the issuer at `issuerBaseUrl`. With `corsOrigin`, a page of
 * that origin may call it (preflights answered, `DPoP-Nonce` and `WWW-Authenticate` exposed).
 * `requirement` is what every route needs besides a valid token (scopes, RFC 9470 step-up).
 */
export async function startApi(
  issuerBaseUrl: string,
  audience: string,
  dpop: DpopOptions = {},
  corsOrigin?: string,
  requirement: VerifyOptions = {},
): Promise<TestApi> {
  const verifier = createVerifier({
    issuer: `${issuerBaseUrl}/oidc`,
    audience,
    jwksUri: `${issuerBaseUrl}/oidc/jwks`,
    allowInsecureHttp: true,
    strict: true,
    dpop,
  });
  const seen: TestApi['seen'] = [];
  const server: Server = createServer((req, res) => {
    if (corsOrigin !== undefined) {
      res.setHeader('access-control-allow-origin', corsOrigin);
      res.setHeader('access-control-expose-headers', 'dpop-nonce, www-authenticate');
      if (req.method === 'OPTIONS') {
        res
          .writeHead(204, {
            'access-control-allow-methods': 'GET, POST',
            'access-control-allow-headers': 'authorization, dpop, content-type',
          })
          .end();
        return;
      }
    }
    const scheme = (req.headers.authorization ?? '').split(' ')[0] ?? '';
    const answer = (status: number, headers: Record<string, string>, body: unknown) => {
      seen.push({ scheme, proof: req.headers.dpop !== undefined, status });
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      verifier
        .authenticate(
          {
            headers: req.headers,
            rawHeaders: req.rawHeaders,
            method: req.method,
            url: `${url}${req.url}`,
          },
          requirement,
        )
        .then(
          (auth: AuthInfo) =>
            answer(
              200,
              {},
              {
                sub: auth.subject,
                act: auth.claims.act ?? null,
                jkt: auth.confirmation?.jkt ?? null,
                acr: auth.claims.acr ?? null,
                body,
              },
            ),
          (err: unknown) => {
            if (isAuthError(err)) answer(err.status, { ...err.headers }, err.toJSON());
            else answer(500, {}, { error: 'server_error' });
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
