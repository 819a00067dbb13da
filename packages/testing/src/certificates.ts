/**
 * Certificates for mutual-TLS tests (RFC 8705): a throwaway certificate authority
 * ({@link createTestCertificateAuthority}), client (and server) certificates it signs
 * ({@link generateTestCertificate}) that a real `node:https` / `node:tls` server with
 * `requestCert: true, ca` accepts, and the RFC 9440 `Client-Cert` header a TLS-terminating proxy would
 * forward ({@link clientCertHeader}). Bind a token to a certificate with `issuer.sign(claims, { certificate })`.
 *
 * Node can parse X.509 certificates (`X509Certificate`) but cannot create them. They are built with
 * PKI.js (`pkijs`, with its ASN.1 library `asn1js`), a maintained, dependency-light library that signs
 * through WebCrypto (Node's `globalThis.crypto` here) and needs no native code, no `openssl` binary and no
 * global set-up. (`@peculiar/x509`, the other WebCrypto option, needs a global `reflect-metadata`
 * polyfill, which a test helper must not install into its users' processes.) PKI.js is loaded on the first
 * call only, so tests that do not use certificates never load it.
 *
 * Keys are ECDSA P-256: made in about a millisecond, and accepted by every TLS stack.
 *
 * @module
 */

import { createHash, KeyObject, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { rejectUnknownOptions } from '@gatehouse/core';
import { DEFAULTS } from './defaults.js';
import { type CertificateInput, certificateDer, certificateThumbprint } from './thumbprint.js';

/**
 * A test certificate authority, from {@link createTestCertificateAuthority}. Its private key stays inside
 * this package: it can only sign through {@link generateTestCertificate}.
 *
 * @example
 * ```ts
 * const ca: TestCertificateAuthority = await createTestCertificateAuthority();
 * https.createServer({ key, cert, requestCert: true, ca: ca.certificate }, app);
 * ```
 */
export interface TestCertificateAuthority {
  /** The self-signed CA certificate, PEM: the `ca` option of a TLS server (or client) that must trust it. */
  readonly certificate: string;
  /** The CA certificate, DER. */
  readonly der: Buffer;
  /** `x5t#S256` of the CA certificate. */
  readonly thumbprint: string;
}

/**
 * A certificate and its private key, from {@link generateTestCertificate}.
 *
 * @example
 * ```ts
 * const client: TestCertificate = await generateTestCertificate();
 * https.request(url, { cert: client.certificate, key: client.privateKey, ca: server.ca.certificate });
 * ```
 */
export interface TestCertificate {
  /** The certificate, PEM: the `cert` option of a TLS client (or server). */
  readonly certificate: string;
  /** The certificate, DER: what `socket.getPeerCertificate().raw` holds on the other side. */
  readonly der: Buffer;
  /** Its private key, PKCS #8 PEM: the `key` option of a TLS client (or server). */
  readonly privateKey: string;
  /** RFC 8705 thumbprint, base64url(SHA-256(DER)): `cnf["x5t#S256"]` of tokens bound to it. */
  readonly thumbprint: string;
  /** The authority that signed it: pass `ca.certificate` as the `ca` option of the side that checks it. */
  readonly ca: TestCertificateAuthority;
}

/**
 * Options of {@link createTestCertificateAuthority}.
 *
 * @example
 * ```ts
 * await createTestCertificateAuthority({ commonName: 'Partner CA' });
 * ```
 */
export interface TestCertificateAuthorityOptions {
  /** Subject `CN`. Default `Gatehouse Test CA`. */
  commonName?: string;
}

/**
 * Options of {@link generateTestCertificate}.
 *
 * @example
 * ```ts
 * await generateTestCertificate({ commonName: 'orders-client' });               // a client certificate
 * await generateTestCertificate({ ca, hosts: ['localhost', '127.0.0.1'] });     // a server certificate
 * ```
 */
export interface TestCertificateOptions {
  /** Subject `CN`. Default `test-client`. */
  commonName?: string;
  /** The authority that signs it. Default: a new one, made for this certificate only. */
  ca?: TestCertificateAuthority;
  /**
   * DNS names and IP addresses for `subjectAltName`, which a TLS client checks against the host it
   * connects to: give them to use the certificate as a server's. Default: none.
   */
  hosts?: string[];
}

type CryptoKey = webcrypto.CryptoKey;
type Pkijs = typeof import('pkijs');
type Asn1js = typeof import('asn1js');
interface Libraries {
  readonly pkijs: Pkijs;
  readonly asn1js: Asn1js;
  readonly engine: InstanceType<Pkijs['CryptoEngine']>;
}

let libraries: Promise<Libraries> | undefined;

/** Load PKI.js once, with a crypto engine of its own over Node's WebCrypto (no global engine is set). */
function load(): Promise<Libraries> {
  libraries ??= Promise.all([import('pkijs'), import('asn1js')]).then(([pkijs, asn1js]) => ({
    pkijs,
    asn1js,
    engine: new pkijs.CryptoEngine({ name: 'gatehouse-testing', crypto: webcrypto }),
  }));
  return libraries;
}

/** The CA's signing key and name, kept out of the public object. */
interface Authority {
  readonly privateKey: CryptoKey;
  readonly commonName: string;
  readonly keyIdentifier: Uint8Array;
}
const authorities = new WeakMap<TestCertificateAuthority, Authority>();

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const OID = Object.freeze({
  commonName: '2.5.4.3',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
});

function nonEmptyString(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`"${option}" option must be a non-empty string`);
  }
  return value;
}

/** The 16 bytes of an IPv6 address (already checked by `isIP`), `::` and a dotted IPv4 tail included. */
function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/** A positive, non-zero, 128-bit serial number (RFC 5280 §4.1.2.2 allows up to 20 octets). */
function serialNumber(): Uint8Array {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40; // positive, and no leading zero octet (DER's minimal encoding)
  return bytes;
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

interface Template {
  readonly subject: string;
  readonly issuer: string;
  readonly publicKey: CryptoKey;
  readonly signingKey: CryptoKey;
  readonly isAuthority: boolean;
  readonly keyIdentifier: Uint8Array;
  readonly authorityKeyIdentifier: Uint8Array;
  readonly hosts: readonly string[];
}

/** Build and sign one X.509 v3 certificate; returns its DER. */
async function buildCertificate(template: Template): Promise<Buffer> {
  const { pkijs, asn1js, engine } = await load();
  const name = (commonName: string) =>
    new pkijs.RelativeDistinguishedNames({
      typesAndValues: [
        new pkijs.AttributeTypeAndValue({
          type: OID.commonName,
          value: new asn1js.Utf8String({ value: commonName }),
        }),
      ],
    });
  const extension = (extnID: string, critical: boolean, value: { toBER(sizeOnly?: boolean): ArrayBuffer }) =>
    new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
  const schema = (value: { toSchema(): { toBER(sizeOnly?: boolean): ArrayBuffer } }) => value.toSchema();

  const certificate = new pkijs.Certificate();
  certificate.version = 2; // v3
  certificate.serialNumber = new asn1js.Integer({ valueHex: toArrayBuffer(serialNumber()) });
  certificate.subject = name(template.subject);
  certificate.issuer = name(template.issuer);
  const now = Date.now();
  certificate.notBefore.value = new Date(now - DEFAULTS.certificateBackdate * 1000);
  certificate.notAfter.value = new Date(now + DEFAULTS.certificateValidity * 1000);

  // Key usage bits (RFC 5280 §4.2.1.3), DER with trailing zero bits cut: digitalSignature (bit 0) for a
  // TLS peer; keyCertSign (bit 5) and cRLSign (bit 6) for the authority.
  const keyUsage = template.isAuthority
    ? new asn1js.BitString({ valueHex: new Uint8Array([0x06]).buffer, unusedBits: 1 })
    : new asn1js.BitString({ valueHex: new Uint8Array([0x80]).buffer, unusedBits: 7 });
  const extensions = [
    extension(
      OID.basicConstraints,
      true,
      schema(new pkijs.BasicConstraints(template.isAuthority ? { cA: true, pathLenConstraint: 0 } : {})),
    ),
    extension(OID.keyUsage, true, keyUsage),
    extension(
      OID.subjectKeyIdentifier,
      false,
      new asn1js.OctetString({ valueHex: toArrayBuffer(template.keyIdentifier) }),
    ),
  ];
  if (!template.isAuthority) {
    extensions.push(
      extension(
        OID.authorityKeyIdentifier,
        false,
        schema(
          new pkijs.AuthorityKeyIdentifier({
            keyIdentifier: new asn1js.OctetString({
              valueHex: toArrayBuffer(template.authorityKeyIdentifier),
            }),
          }),
        ),
      ),
      extension(
        OID.extKeyUsage,
        false,
        schema(new pkijs.ExtKeyUsage({ keyPurposes: [OID.clientAuth, OID.serverAuth] })),
      ),
    );
    if (template.hosts.length > 0) {
      const altNames = template.hosts.map((host) => {
        const version = isIP(host);
        if (version === 0) return new pkijs.GeneralName({ type: 2, value: host }); // dNSName
        const bytes = version === 4 ? new Uint8Array(host.split('.').map(Number)) : ipv6Bytes(host);
        return new pkijs.GeneralName({
          type: 7, // iPAddress
          value: new asn1js.OctetString({ valueHex: toArrayBuffer(bytes) }),
        });
      });
      extensions.push(extension(OID.subjectAltName, false, schema(new pkijs.AltName({ altNames }))));
    }
  }
  certificate.extensions = extensions;

  await certificate.subjectPublicKeyInfo.importKey(template.publicKey, engine);
  await certificate.sign(template.signingKey, 'SHA-256', engine);
  return Buffer.from(certificate.toSchema(true).toBER(false));
}

/** An ECDSA P-256 key pair and its key identifier (RFC 7093 §2 method 1: SHA-256 of the key, 160 bits). */
async function newKeyPair(): Promise<{ keys: webcrypto.CryptoKeyPair; keyIdentifier: Uint8Array }> {
  const keys = await webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const raw = new Uint8Array(await webcrypto.subtle.exportKey('raw', keys.publicKey));
  return { keys, keyIdentifier: createHash('sha256').update(raw).digest().subarray(0, 20) };
}

/**
 * Create a test certificate authority: a self-signed CA certificate (ECDSA P-256, valid 1 day) whose
 * private key never leaves this package. Give several certificates the same authority with
 * `generateTestCertificate({ ca })`, and make a TLS server trust it with `ca: ca.certificate`.
 *
 * @example
 * ```ts
 * import { createTestCertificateAuthority, generateTestCertificate } from '@gatehouse/testing';
 *
 * const ca = await createTestCertificateAuthority();
 * const server = await generateTestCertificate({ ca, commonName: 'localhost', hosts: ['localhost', '127.0.0.1'] });
 * const client = await generateTestCertificate({ ca });
 * https.createServer({ key: server.privateKey, cert: server.certificate, requestCert: true, ca: ca.certificate }, app);
 * ```
 */
export async function createTestCertificateAuthority(
  options: TestCertificateAuthorityOptions = {},
): Promise<TestCertificateAuthority> {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  rejectUnknownOptions(options, ['commonName']);
  const commonName = nonEmptyString(options.commonName, 'commonName') ?? DEFAULTS.certificateAuthorityName;
  const { keys, keyIdentifier } = await newKeyPair();
  const der = await buildCertificate({
    subject: commonName,
    issuer: commonName,
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    isAuthority: true,
    keyIdentifier,
    authorityKeyIdentifier: keyIdentifier,
    hosts: [],
  });
  const ca: TestCertificateAuthority = Object.freeze({
    certificate: new X509Certificate(der).toString(),
    der,
    thumbprint: certificateThumbprint(der),
  });
  authorities.set(ca, { privateKey: keys.privateKey, commonName, keyIdentifier });
  return ca;
}

/**
 * Generate a certificate and its private key for mutual TLS: ECDSA P-256, valid 1 day (from 5 minutes
 * ago), extended key usage `clientAuth` and `serverAuth`, signed by `options.ca` or by a new test
 * authority. A `node:https` server with `requestCert: true, ca: cert.ca.certificate` accepts it as a
 * client certificate, and sees `cert.thumbprint` as the SHA-256 of `socket.getPeerCertificate().raw`.
 *
 * @example
 * ```ts
 * import { createTestIssuer, generateTestCertificate } from '@gatehouse/testing';
 *
 * const issuer = await createTestIssuer();
 * const client = await generateTestCertificate({ commonName: 'orders-client' });
 * const token = await issuer.sign({ scope: 'read:orders' }, { certificate: client }); // cnf["x5t#S256"]
 * https.get(url, { cert: client.certificate, key: client.privateKey, headers: { authorization: `Bearer ${token}` } });
 * ```
 */
export async function generateTestCertificate(
  options: TestCertificateOptions = {},
): Promise<TestCertificate> {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  rejectUnknownOptions(options, ['commonName', 'ca', 'hosts']);
  const commonName = nonEmptyString(options.commonName, 'commonName') ?? DEFAULTS.certificateCommonName;
  const hosts = options.hosts ?? [];
  if (!Array.isArray(hosts) || hosts.some((host) => typeof host !== 'string' || host.length === 0)) {
    throw new TypeError('"hosts" option must be an array of non-empty strings');
  }
  const ca = options.ca ?? (await createTestCertificateAuthority());
  const authority = authorities.get(ca);
  if (authority === undefined) {
    throw new TypeError('"ca" option must be an authority from createTestCertificateAuthority()');
  }
  const { keys, keyIdentifier } = await newKeyPair();
  const der = await buildCertificate({
    subject: commonName,
    issuer: authority.commonName,
    publicKey: keys.publicKey,
    signingKey: authority.privateKey,
    isAuthority: false,
    keyIdentifier,
    authorityKeyIdentifier: authority.keyIdentifier,
    hosts,
  });
  return Object.freeze({
    certificate: new X509Certificate(der).toString(),
    der,
    privateKey: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string,
    thumbprint: certificateThumbprint(der),
    ca,
  });
}

/**
 * The RFC 9440 `Client-Cert` header value for a certificate: its DER as a structured-field byte sequence,
 * `:<base64 DER>:` (standard base64 with padding). A TLS-terminating proxy sends it to the API behind it.
 *
 * @example
 * ```ts
 * import { clientCertHeader, generateTestCertificate } from '@gatehouse/testing';
 *
 * const client = await generateTestCertificate();
 * await request(app).get('/orders').set('client-cert', clientCertHeader(client.der));
 * clientCertHeader(client.certificate); // PEM works too, and so does the TestCertificate itself
 * ```
 */
export function clientCertHeader(certificate: CertificateInput): string {
  return `:${certificateDer(certificate).toString('base64')}:`;
}
