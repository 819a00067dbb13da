/**
 * The mTLS samples of docs/testing.md §14 (the DPoP ones are testing-dpop.test.ts). Until core verifies
 * certificate-bound tokens, the sample's API is a real node:https server that compares the client
 * certificate it sees with the token's cnf["x5t#S256"] by hand.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  clientCertHeader,
  createTestCertificateAuthority,
  createTestIssuer,
  generateTestCertificate,
} from '@gatehouse/testing';
import { describe, expect, it } from 'vitest';

const issuer = await createTestIssuer();

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('base64url');
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());

/** GET / over TLS with a client certificate and a bearer token; resolves with the status code. */
function getWith(
  port: number,
  ca: string,
  client: { certificate: string; privateKey: string },
  token: string,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        ca,
        cert: client.certificate,
        key: client.privateKey,
        headers: { authorization: `Bearer ${token}` },
        agent: false,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('14. mTLS', async () => {
  /** An API that accepts a request when its token's cnf["x5t#S256"] is the TLS client certificate's. */
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const seen = sha256((req.socket as TLSSocket).getPeerCertificate().raw);
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const bound = bearer === '' ? undefined : claimsOf(bearer).cnf?.['x5t#S256'];
    res.statusCode = bound === seen ? 200 : 401;
    res.end();
  };

  const ca = await createTestCertificateAuthority();
  const tls = await generateTestCertificate({ ca, commonName: 'localhost', hosts: ['127.0.0.1'] });
  const client = await generateTestCertificate({ ca, commonName: 'orders-client' });
  const token = await issuer.sign({ scope: 'read:orders' }, { certificate: client }); // cnf["x5t#S256"]

  const api = createServer(
    { key: tls.privateKey, cert: tls.certificate, requestCert: true, ca: ca.certificate },
    handler,
  );
  // the client: https.request(url, { key: client.privateKey, cert: client.certificate, ca: ca.certificate })
  // the server: socket.getPeerCertificate().raw hashes to client.thumbprint
  // behind a TLS-terminating proxy, the certificate comes in a header instead (RFC 9440):
  const forwarded = { 'client-cert': clientCertHeader(client) }; // ':MIIB…:'

  it('a real TLS server accepts the client certificate and sees the thumbprint the token is bound to', async () => {
    api.listen(0, '127.0.0.1');
    await once(api, 'listening');
    try {
      const { port } = api.address() as AddressInfo;
      expect(await getWith(port, ca.certificate, client, token)).toBe(200);
      const other = await generateTestCertificate({ ca });
      expect(await getWith(port, ca.certificate, other, token)).toBe(401); // right CA, wrong certificate
    } finally {
      api.close();
    }
  });

  it('puts the DER certificate in the Client-Cert header as :base64:', () => {
    const value = forwarded['client-cert'];
    expect(value).toMatch(/^:MII[A-Za-z0-9+/]+={0,2}:$/);
    expect(sha256(Buffer.from(value.slice(1, -1), 'base64'))).toBe(client.thumbprint);
    expect(claimsOf(token).cnf).toEqual({ 'x5t#S256': client.thumbprint });
  });
});
