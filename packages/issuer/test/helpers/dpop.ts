/**
 * DPoP (RFC 9449) test client: openid-client 6 (oauth4webapi underneath) against the real issuer over
 * loopback, with a recording `fetch` so tests can replay a proof exactly as it was sent.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { jwkThumbprint } from '@gatehouse/core';
import * as oidc from 'openid-client';
import { Agent, pkce, signIn } from './agent.js';
import { PASSWORD, REDIRECT } from './fixtures.js';

/** One request the client sent to the token endpoint (or elsewhere), as sent. */
export interface SentRequest {
  readonly url: string;
  readonly dpop: string | null;
  readonly body: string;
}

/** A DPoP-capable client of one application. */
export interface DpopClient {
  readonly config: oidc.Configuration;
  /** Every request sent, oldest first. */
  readonly sent: SentRequest[];
  /** The proof of the last request to the token endpoint. */
  lastProof(): string;
}

/**
 * A client of `clientId` (confidential with `clientSecret`, public without) that records its requests.
 */
export async function dpopClient(
  baseUrl: string,
  clientId: string,
  clientSecret?: string,
): Promise<DpopClient> {
  const sent: SentRequest[] = [];
  const record: oidc.CustomFetch = async (url, options) => {
    const headers = new Headers(options.headers as ConstructorParameters<typeof Headers>[0]);
    sent.push({
      url,
      dpop: headers.get('dpop'),
      body: typeof options.body === 'string' ? options.body : String(options.body ?? ''),
    });
    return fetch(url, options as RequestInit);
  };
  const config = await oidc.discovery(
    new URL(`${baseUrl}/oidc`),
    clientId,
    undefined,
    clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret),
    { execute: [oidc.allowInsecureRequests], [oidc.customFetch]: record },
  );
  config[oidc.customFetch] = record;
  return {
    config,
    sent,
    lastProof() {
      const proof = sent.filter((request) => request.url.endsWith('/oidc/token')).at(-1)?.dpop;
      if (proof == null) throw new Error('no DPoP proof was sent');
      return proof;
    },
  };
}

/** A new ES256 key pair and its DPoP handle for `client`. */
export async function dpopKey(client: DpopClient): Promise<{
  keyPair: Awaited<ReturnType<typeof oidc.randomDPoPKeyPair>>;
  handle: oidc.DPoPHandle;
  jkt: string;
}> {
  const keyPair = await oidc.randomDPoPKeyPair('ES256');
  const jwk = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
  return {
    keyPair,
    handle: oidc.getDPoPHandle(client.config, keyPair),
    jkt: jwkThumbprint(jwk as Record<string, string>)!,
  };
}

/** Options of {@link dpopSignIn}. */
export interface DpopSignInOptions {
  readonly baseUrl: string;
  readonly username: string;
  readonly scope: string;
  readonly resource?: string;
  /** Omit to redeem the code without a proof. */
  readonly handle?: oidc.DPoPHandle | undefined;
}

/** Sign `username` in through the pages, then redeem the code with openid-client (with a proof when `handle`). */
export async function dpopSignIn(
  client: DpopClient,
  options: DpopSignInOptions,
): Promise<oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers> {
  const { verifier, challenge } = pkce();
  const res = await signIn(new Agent(), {
    baseUrl: options.baseUrl,
    clientId: client.config.clientMetadata().client_id,
    redirectUri: REDIRECT,
    scope: options.scope,
    ...(options.resource === undefined ? {} : { resource: options.resource }),
    identifier: options.username,
    password: PASSWORD,
    codeChallenge: challenge,
    extra: options.scope.includes('offline_access') ? { prompt: 'consent' } : {},
  });
  if (res.location === undefined) throw new Error(`sign-in stopped: ${res.status}`);
  const callback = new URL(res.location);
  return oidc.authorizationCodeGrant(
    client.config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: callback.searchParams.get('state') ?? undefined },
    options.resource === undefined ? undefined : { resource: options.resource },
    options.handle === undefined ? undefined : { DPoP: options.handle },
  );
}

/** POST a form to the token endpoint with an exact `DPoP` header (a replayed or forged proof). */
export async function postWithProof(
  url: string,
  form: Record<string, string>,
  proof: string | undefined,
  credentials?: { clientId: string; clientSecret: string },
): Promise<{ status: number; body: Record<string, any>; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(proof === undefined ? {} : { dpop: proof }),
      ...(credentials === undefined
        ? {}
        : {
            authorization: `Basic ${Buffer.from(`${credentials.clientId}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64')}`,
          }),
    },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

/** A DPoP key made with node:crypto, for proofs built by hand (exact `jti`, `iat`, `nonce`). */
export interface ManualKey {
  readonly privateKey: KeyObject;
  readonly publicJwk: Record<string, string>;
  readonly jkt: string;
}

/** A new P-256 key for {@link manualProof}. */
export function manualKey(): ManualKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const publicJwk = { kty: kty!, crv: crv!, x: x!, y: y! };
  return { privateKey, publicJwk, jkt: jwkThumbprint(publicJwk)! };
}

/** An ES256 DPoP proof (RFC 9449 §4.2) for `htm` `htu`, with `nonce` and `ath` when given. */
export function manualProof(
  key: ManualKey,
  claims: { htm: string; htu: string; nonce?: string; iat?: number; jti?: string; ath?: string },
): string {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk });
  const payload = b64({
    jti: claims.jti ?? randomUUID(),
    iat: claims.iat ?? Math.floor(Date.now() / 1000),
    htm: claims.htm,
    htu: claims.htu,
    ...(claims.nonce === undefined ? {} : { nonce: claims.nonce }),
    ...(claims.ath === undefined ? {} : { ath: claims.ath }),
  });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
    key: key.privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${header}.${payload}.${signature.toString('base64url')}`;
}
