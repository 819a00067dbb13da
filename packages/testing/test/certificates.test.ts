import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clientCertHeader,
  createTestCertificateAuthority,
  generateTestCertificate,
  type TestCertificate,
} from '../src/certificates.js';
import { DEFAULTS } from '../src/defaults.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real HTTPS server that requires a client certificate signed by `ca`, and answers with what it saw. */
async function mtlsServer(server: TestCertificate, ca: string): Promise<number> {
  const https = createServer(
    { key: server.privateKey, cert: server.certificate, requestCert: true, rejectUnauthorized: true, ca },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          authorized: (req.socket as TLSSocket).authorized,
          subject: peer.subject?.CN,
          thumbprint: createHash('sha256').update(peer.raw).digest('base64url'),
        }),
      );
    },
  );
  servers.push(https);
  https.listen(0, '127.0.0.1');
  await once(https, 'listening');
  return (https.address() as AddressInfo).port;
}

/** GET / over TLS with a client certificate (or none), trusting `ca` for the server. */
function get(
  port: number,
  options: { ca: string; host?: string; client?: TestCertificate },
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        servername: options.host,
        port,
        path: '/',
        ca: options.ca,
        ...(options.client === undefined
          ? {}
          : { cert: options.client.certificate, key: options.client.privateKey }),
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(JSON.parse(body)));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('generateTestCertificate over real TLS', () => {
  it('is accepted by a node:https server with requestCert, which sees the same SHA-256 thumbprint', async () => {
    const ca = await createTestCertificateAuthority();
    const server = await generateTestCertificate({
      ca,
      commonName: 'localhost',
      hosts: ['localhost', '127.0.0.1'],
    });
    const client = await generateTestCertificate({ commonName: 'orders-client' }); // its own CA
    const port = await mtlsServer(server, client.ca.certificate);
    const seen = await get(port, { ca: ca.certificate, client });
    expect(seen).toEqual({ authorized: true, subject: 'orders-client', thumbprint: client.thumbprint });
  });

  it('is refused by a server that trusts another authority, and no certificate is refused too', async () => {
    const ca = await createTestCertificateAuthority();
    const server = await generateTestCertificate({ ca, hosts: ['127.0.0.1'] });
    const port = await mtlsServer(server, ca.certificate);
    const stranger = await generateTestCertificate(); // signed by a different, fresh authority
    await expect(get(port, { ca: ca.certificate, client: stranger })).rejects.toThrow();
    await expect(get(port, { ca: ca.certificate })).rejects.toThrow();
    const trusted = await generateTestCertificate({ ca });
    await expect(get(port, { ca: ca.certificate, client: trusted })).resolves.toMatchObject({
      authorized: true,
    });
  });

  it('serves as a server certificate for the hosts it names (hostname checked by the client)', async () => {
    const ca = await createTestCertificateAuthority();
    const server = await generateTestCertificate({ ca, hosts: ['api.gatehouse.test', '127.0.0.1'] });
    const client = await generateTestCertificate({ ca });
    const port = await mtlsServer(server, ca.certificate);
    await expect(
      get(port, { ca: ca.certificate, client, host: 'api.gatehouse.test' }),
    ).resolves.toMatchObject({
      authorized: true,
    });
    await expect(get(port, { ca: ca.certificate, client, host: 'other.gatehouse.test' })).rejects.toThrow(
      /altnames/i,
    );
  });
});

describe('generateTestCertificate contents', async () => {
  const cert = await generateTestCertificate();
  const x509 = new X509Certificate(cert.der);
  const ca = new X509Certificate(cert.ca.der);

  it('is a PEM certificate with its DER, a matching PKCS #8 key and its x5t#S256', () => {
    expect(cert.certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
    expect(new X509Certificate(cert.certificate).raw.equals(cert.der)).toBe(true);
    expect(cert.privateKey.startsWith('-----BEGIN PRIVATE KEY-----')).toBe(true);
    expect(x509.checkPrivateKey(createPrivateKey(cert.privateKey))).toBe(true);
    expect(cert.thumbprint).toBe(createHash('sha256').update(cert.der).digest('base64url'));
  });

  it('is an ECDSA P-256 client certificate of the default name, signed by its CA', () => {
    expect(x509.subject).toBe(`CN=${DEFAULTS.certificateCommonName}`);
    expect(x509.issuer).toBe(`CN=${DEFAULTS.certificateAuthorityName}`);
    expect(x509.ca).toBe(false);
    expect(x509.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(x509.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.2'])); // clientAuth
    expect(x509.checkIssued(ca)).toBe(true);
    expect(x509.verify(ca.publicKey)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(ca.verify(ca.publicKey)).toBe(true); // self-signed
    expect(x509.subjectAltName).toBeUndefined();
  });

  it('is valid from 5 minutes ago for one day', () => {
    const from = Date.parse(x509.validFrom);
    const to = Date.parse(x509.validTo);
    expect(Math.abs(from - (Date.now() - DEFAULTS.certificateBackdate * 1000))).toBeLessThan(60_000);
    expect(to - from).toBe((DEFAULTS.certificateValidity + DEFAULTS.certificateBackdate) * 1000);
  });

  it('names DNS and IP hosts (v4 and v6) in subjectAltName', async () => {
    const named = await generateTestCertificate({
      hosts: ['localhost', '127.0.0.1', '::1', '2001:db8::1:0:5'],
    });
    expect(new X509Certificate(named.der).subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:1:0:5',
    );
  });

  it('makes a new key, serial number and authority on every call, unless given one', async () => {
    const other = await generateTestCertificate();
    expect(other.thumbprint).not.toBe(cert.thumbprint);
    expect(new X509Certificate(other.der).serialNumber).not.toBe(x509.serialNumber);
    expect(other.ca.thumbprint).not.toBe(cert.ca.thumbprint);
    const shared = await createTestCertificateAuthority({ commonName: 'Partner CA' });
    const [a, b] = await Promise.all([
      generateTestCertificate({ ca: shared }),
      generateTestCertificate({ ca: shared }),
    ]);
    expect(a.ca).toBe(shared);
    expect(b.ca).toBe(shared);
    expect(new X509Certificate(a.der).issuer).toBe('CN=Partner CA');
  });

  it('refuses bad options, and an authority it did not make', async () => {
    await expect(generateTestCertificate({ commonName: '' })).rejects.toThrow(/"commonName" option/);
    await expect(generateTestCertificate({ hosts: 'localhost' as never })).rejects.toThrow(/"hosts" option/);
    await expect(generateTestCertificate({ hosts: [''] })).rejects.toThrow(/"hosts" option/);
    await expect(generateTestCertificate({ ca: { ...cert.ca } })).rejects.toThrow(
      /"ca" option must be an authority from createTestCertificateAuthority/,
    );
    await expect(generateTestCertificate(null as never)).rejects.toThrow(/options must be an object/);
    await expect(createTestCertificateAuthority({ commonName: 7 as never })).rejects.toThrow(/"commonName"/);
  });

  it('keeps the authority private key out of the authority object', () => {
    expect(Object.keys(cert.ca).sort()).toEqual(['certificate', 'der', 'thumbprint']);
    expect(JSON.stringify(cert.ca)).not.toContain('PRIVATE KEY');
  });
});

describe('clientCertHeader (RFC 9440)', async () => {
  const cert = await generateTestCertificate();

  it('is a structured-field byte sequence :<base64 DER>: that round-trips to the certificate', () => {
    const value = clientCertHeader(cert.der);
    expect(value).toMatch(/^:[A-Za-z0-9+/]+={0,2}:$/);
    const der = Buffer.from(value.slice(1, -1), 'base64');
    expect(der.equals(cert.der)).toBe(true);
    expect(new X509Certificate(der).fingerprint256).toBe(new X509Certificate(cert.der).fingerprint256);
    expect(createHash('sha256').update(der).digest('base64url')).toBe(cert.thumbprint);
  });

  it('takes PEM or the certificate object too, and refuses anything else', () => {
    expect(clientCertHeader(cert.certificate)).toBe(clientCertHeader(cert.der));
    expect(clientCertHeader(cert)).toBe(clientCertHeader(cert.der));
    expect(() => clientCertHeader('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toThrow(
      TypeError,
    );
    expect(() => clientCertHeader(undefined as never)).toThrow(TypeError);
  });
});
