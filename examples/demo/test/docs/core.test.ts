/**
 * docs/core.md: verifying a token with core directly, and authenticate() on a raw node:http request.
 * The samples are the code below, line for line (docs-samples.test.ts checks it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerifier, isAuthError, toAuditRecord } from '@gatehouse/core';
import { describe, expect, it, vi } from 'vitest';
import { useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer('https://api.example.com/orders');

/** The "Verify a token" sample, as a request handler of a raw node:http server. */
function makeHandler(logger: { info(record: object, message: string): void }) {
  const verifier = createVerifier({
    issuer: 'https://id.example.com/oidc', // compared exactly
    audience: 'https://api.example.com/orders', // this API's resource indicator
    strict: true, // RFC 9068 profile: typ at+jwt, sub/client_id/iat/jti required
  });

  return async (req: IncomingMessage, res: ServerResponse, token: string) => {
    try {
      const auth = await verifier.verify(token, { scopes: ['read:orders'] });
      console.log(auth.subject, auth.scopes, auth.actor?.sub);
      logger.info(toAuditRecord(auth), 'order listed');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } catch (err) {
      if (!isAuthError(err)) throw err;
      res.writeHead(err.status, { 'content-type': 'application/json', ...err.headers });
      res.end(JSON.stringify(err.toJSON()));
    }
    return req;
  };
}

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('docs/core.md', () => {
  it('verify(): 200 with the scope, an RFC 6750 answer otherwise, and an audit record', async () => {
    const logger = { info: vi.fn() };
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const handle = makeHandler(logger);
    const token = await issuer.sign({ scope: 'read:orders' });
    const weak = await issuer.sign({ scope: 'profile' });
    const server = await serve((req, res) => handle(req, res, (req.headers['x-token'] as string) ?? ''));
    try {
      const ok = await fetch(server.url, { headers: { 'x-token': token } });
      expect(ok.status).toBe(200);
      expect(logger.info).toHaveBeenCalledWith(
        expect.objectContaining({ subject: 'user-1' }),
        'order listed',
      );
      const refused = await fetch(server.url, { headers: { 'x-token': weak } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('www-authenticate')).toContain('scope="read:orders"');
      expect(await refused.json()).toMatchObject({ error: 'insufficient_scope' });
    } finally {
      log.mockRestore();
      await server.close();
    }
  });

  it('authenticate(): extracts the bearer token and refuses delegated tokens on this route', async () => {
    const verifier = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com/orders',
    });
    const results: unknown[] = [];
    const server = await serve(async (req, res) => {
      try {
        const auth = await verifier.authenticate(
          { headers: req.headers, rawHeaders: req.rawHeaders, method: req.method },
          { scopes: 'read:orders', allowDelegation: false },
        );
        results.push(auth.subject);
        res.writeHead(200).end();
      } catch (err) {
        if (!isAuthError(err)) throw err;
        res.writeHead(err.status, err.headers).end();
      }
    });
    try {
      const plain = await issuer.sign({ scope: 'read:orders' });
      const delegated = await issuer.impersonation('support-7', { scope: 'read:orders' });
      expect((await fetch(server.url, { headers: { authorization: `Bearer ${plain}` } })).status).toBe(200);
      expect((await fetch(server.url, { headers: { authorization: `Bearer ${delegated}` } })).status).toBe(
        403,
      );
      const missing = await fetch(server.url);
      expect([missing.status, missing.headers.get('www-authenticate')]).toEqual([
        401,
        'Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
      ]);
      expect(results).toEqual(['user-1']);
    } finally {
      await server.close();
    }
  });
});
