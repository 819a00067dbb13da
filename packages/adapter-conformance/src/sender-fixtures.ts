/**
 * What the sender-constrained rows (`dpop-cases.ts`) are built from: the deployments' variants and their
 * configuration, and the DPoP keys, client certificates and bound tokens minted once per run.
 *
 * Variants (each deployed on Express, Fastify and Koa):
 * - `required`: `dpop.mode: 'required'`, proof algorithms limited to {@link REQUIRED_ALGS};
 * - `disabled`: `dpop.mode: 'disabled'`;
 * - `nonce`: server nonces with {@link NONCE_SECRET} (the deployment's `verifier.dpopNonce()` is the one to use);
 * - `origin`: the adapters get `origin: PUBLIC_ORIGIN`;
 * - `proxy`: the framework's trust-proxy setting on, no origin;
 * - `mtls`: https, asking for (never requiring) a client certificate;
 * - `mtls-header`: the verifier reads the client certificate from the RFC 9440 `Client-Cert` header only.
 *
 * @module
 */
import { createHmac, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { DpopOptions, MtlsOptions } from '@gatehouse/core';
import {
  type DpopKey,
  type DpopPublicJwk,
  generateDpopKey,
  generateTestCertificate,
  type TestCertificate,
  type TestIssuer,
  thumbprint,
} from '@gatehouse/testing';
import { SCOPES } from './app.js';
import { SUBJECT, type Tokens, type Variant } from './case-table.js';

export const DPOP_VARIANTS = [
  'required',
  'disabled',
  'nonce',
  'origin',
  'proxy',
  'mtls',
  'mtls-header',
] as const;
export type DpopVariant = (typeof DPOP_VARIANTS)[number];
/** Every deployment of the suite. */
export type AnyVariant = Variant | DpopVariant;

/** The public origin of the `origin` variant. */
export const PUBLIC_ORIGIN = 'https://api.gatehouse.test';
/** Proof algorithms of the `required` variant (the default list is `ES256 EdDSA RS256 PS256`). */
export const REQUIRED_ALGS = ['ES256', 'EdDSA'] as const;
/** The nonce secret of the `nonce` variant, and its step: long, so a run never straddles two steps. */
export const NONCE_SECRET = 'gatehouse conformance: a fixed DPoP nonce secret';
export const NONCE_LIFETIME = 3600;
/** The RFC 9440 header of the `mtls-header` variant. */
export const CLIENT_CERT_HEADER = 'client-cert';

/** How a variant's verifier and apps differ from the default ones. */
export interface VariantConfig {
  readonly dpop?: DpopOptions;
  readonly mtls?: MtlsOptions;
  readonly origin?: string;
  readonly trustProxy?: boolean;
  /** Serve https with a test certificate. */
  readonly tls?: boolean;
}

export const DPOP_VARIANT_CONFIG: Readonly<Record<DpopVariant, VariantConfig>> = Object.freeze({
  required: { dpop: { mode: 'required', algorithms: [...REQUIRED_ALGS] } },
  disabled: { dpop: { mode: 'disabled' } },
  nonce: { dpop: { nonce: { secret: NONCE_SECRET, lifetime: NONCE_LIFETIME } } },
  origin: { origin: PUBLIC_ORIGIN },
  proxy: { trustProxy: true },
  mtls: { tls: true },
  'mtls-header': { mtls: { certificateHeader: CLIENT_CERT_HEADER } },
});

/**
 * The nonce of the step `stepsBack` steps before now, computed from the documented stateless scheme
 * (dpop-nonce.ts): base64url(step as 6 bytes ‖ HMAC-SHA-256(secret, "gatehouse-dpop-nonce" ‖ step)[0..18)).
 */
export function nonceStepsBack(stepsBack: number, now = Date.now() / 1000): string {
  const step = Math.floor(now / NONCE_LIFETIME) - stepsBack;
  const stepBytes = Buffer.alloc(6);
  stepBytes.writeUIntBE(step, 0, 6);
  const mac = createHmac('sha256', NONCE_SECRET).update('gatehouse-dpop-nonce').update(stepBytes).digest();
  return Buffer.concat([stepBytes, mac.subarray(0, 18)]).toString('base64url');
}

/** DPoP keys of the rows. */
export interface DpopKeys {
  /** ES256: the key the bound tokens name in `cnf.jkt`. */
  readonly main: DpopKey;
  readonly eddsa: DpopKey;
  readonly ps256: DpopKey;
  readonly rs256: DpopKey;
  /** Another ES256 key: a thief's. */
  readonly other: DpopKey;
  /** RSA with a 1024-bit modulus, signing RS256 (D21). */
  readonly weakRsa: DpopKey;
  /** EC on secp256k1, signing as ES256 (D21: an unsupported curve). */
  readonly secp256k1: DpopKey;
}

/** Bound tokens, keys and client certificates (the unbound tokens are the {@link Tokens}). */
export interface SenderTokens {
  readonly keys: DpopKeys;
  /** `read:users write:users`, bound to `keys.main`. */
  readonly bound: string;
  /** `read:users`, bound to `keys.main`. */
  readonly boundReadOnly: string;
  /** Impersonation (`support-7` acting for the subject), both scopes, bound to `keys.main`. */
  readonly boundDelegated: string;
  readonly boundExpired: string;
  /** Bound to the key of the same name. */
  readonly boundEddsa: string;
  readonly boundPs256: string;
  readonly boundRs256: string;
  readonly boundWeakRsa: string;
  readonly boundSecp256k1: string;
  /** Client certificates; `alice` is the one the certificate-bound tokens name. */
  readonly alice: TestCertificate;
  readonly mallory: TestCertificate;
  /** Both scopes, `cnf["x5t#S256"]` of `alice`. */
  readonly certBound: string;
  /** Both scopes, bound to `alice` and to `keys.main`. */
  readonly doublyBound: string;
}

/** What a row's request is built from. */
export type Fixtures = Tokens & SenderTokens;

const generate = promisify(generateKeyPair);

/** A DPoP key that `generateDpopKey()` refuses to make: a weak RSA key or another curve. */
async function unusualKey(
  alg: 'RS256' | 'ES256',
  pair: Promise<{ publicKey: KeyObject; privateKey: KeyObject }>,
): Promise<DpopKey> {
  const { publicKey, privateKey } = await pair;
  const jwk = publicKey.export({ format: 'jwk' });
  const publicJwk: DpopPublicJwk =
    jwk.kty === 'RSA'
      ? { kty: 'RSA', n: jwk.n!, e: jwk.e! }
      : { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! };
  return Object.freeze({
    alg,
    privateKey,
    publicJwk: Object.freeze(publicJwk),
    thumbprint: thumbprint({ ...publicJwk }),
  });
}

/** Mint the {@link SenderTokens} from a test issuer. */
export async function mintSenderTokens(issuer: TestIssuer): Promise<SenderTokens> {
  const [main, eddsa, ps256, rs256, other, weakRsa, secp256k1] = await Promise.all([
    generateDpopKey('ES256'),
    generateDpopKey('EdDSA'),
    generateDpopKey('PS256'),
    generateDpopKey('RS256'),
    generateDpopKey('ES256'),
    unusualKey('RS256', generate('rsa', { modulusLength: 1024 })),
    unusualKey('ES256', generate('ec', { namedCurve: 'secp256k1' })),
  ]);
  const [alice, mallory] = await Promise.all([
    generateTestCertificate({ commonName: 'client-alice' }),
    generateTestCertificate({ commonName: 'client-mallory' }),
  ]);
  const scope = SCOPES.pair.join(' ');
  const bind = (dpop: DpopKey) => issuer.sign({ sub: SUBJECT, scope }, { dpop });
  return {
    keys: { main, eddsa, ps256, rs256, other, weakRsa, secp256k1 },
    bound: await bind(main),
    boundReadOnly: await issuer.sign({ sub: SUBJECT, scope: SCOPES.one }, { dpop: main }),
    boundDelegated: await issuer.impersonation('support-7', { sub: SUBJECT, scope }, { dpop: main }),
    boundExpired: await issuer.tokens.expired({ sub: SUBJECT, scope }, { dpop: main }),
    boundEddsa: await bind(eddsa),
    boundPs256: await bind(ps256),
    boundRs256: await bind(rs256),
    boundWeakRsa: await bind(weakRsa),
    boundSecp256k1: await bind(secp256k1),
    alice,
    mallory,
    certBound: await issuer.sign({ sub: SUBJECT, scope }, { certificate: alice }),
    doublyBound: await issuer.sign({ sub: SUBJECT, scope }, { certificate: alice, dpop: main }),
  };
}
