/**
 * A minimal self-signed X.509 v3 certificate builder (DER), so tests can put a real, verifiable
 * self-signed chain in a JWS `x5c` header without shelling out to openssl.
 */
import { type KeyObject, sign } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x100) return Buffer.from([0x81, n]);
  return Buffer.from([0x82, n >> 8, n & 0xff]);
}

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const seq = (...content: Buffer[]) => tlv(0x30, ...content);

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let v = arc >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const utcTime = (date: Date) =>
  tlv(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, '')}Z`, 'ascii'));
const name = (cn: string) => seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));

function signatureAlgorithm(key: KeyObject): { id: Buffer; hash: string | null } {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return { id: seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00])), hash: 'sha256' };
    case 'ec':
      return { id: seq(oid('1.2.840.10045.4.3.2')), hash: 'sha256' };
    case 'ed25519':
      return { id: seq(oid('1.3.101.112')), hash: null };
    default:
      throw new Error(`unsupported key type ${key.asymmetricKeyType}`);
  }
}

/** DER of a self-signed certificate for the key pair, valid from yesterday for a year. */
export function selfSignedCertificate(
  privateKey: KeyObject,
  publicKey: KeyObject,
  commonName = 'attacker',
): Buffer {
  const { id, hash } = signatureAlgorithm(privateKey);
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([0x01, 0x23, 0x45, 0x67])),
    id,
    name(commonName),
    seq(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 365 * 86_400_000))),
    name(commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign(hash, tbs, privateKey);
  return seq(tbs, id, tlv(0x03, Buffer.from([0]), signature));
}
