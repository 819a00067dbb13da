/**
 * The samples of docs/dpop.md, each wrapped in a function that builds the API, answering real requests
 * (supertest, or a real loopback HTTPS server for mTLS) with tokens, proofs and certificates minted by
 * @gatehouse/testing for the example issuer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createVerifier, isAuthError, MemoryReplayStore, type ReplayStore } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import {
  clientCertHeader,
  createDpopProof,
  createTestCertificateAuthority,
  generateDpopKey,
  generateTestCertificate,
} from '@gatehouse/testing';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();
const nonceSecret = 'a 32+ byte secret every API instance shares';
process.env.DPOP_NONCE_SECRET = nonceSecret;

function dpopRequired() {
  const app = express();
  app.use(
    requireAuth({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      origin: 'https://api.example.com', // the public origin proofs must name (htu)
      dpop: { mode: 'required' },
    }),
  );
  app.get('/orders', requireScope('read:orders'), (req, res) => {
    res.json({ orders: [], for: req.auth?.subject, boundTo: req.auth?.confirmation?.jkt });
  });
  return app;
}

function withNonces() {
  const verifier = createVerifier({
    issuer: 'https://id.example.com/oidc',
    audience: 'https://api.example.com',
    dpop: { nonce: { secret: process.env.DPOP_NONCE_SECRET!, lifetime: 300 } },
  });
  return verifier;
}

/** A replay store on any database with an atomic "insert if absent"; here a Map stands in for it. */
function customStore(): ReplayStore {
  const seen = new Map<string, number>();
  const store: ReplayStore = {
    async record(id, expiresAt) {
      const held = seen.get(id);
      if (held !== undefined && held > Date.now()) return false; // a replay
      seen.set(id, expiresAt); // keep it until the proof would be stale anyway
      return true;
    },
  };
  return store;
}

const replayStore = customStore();
const sized = new MemoryReplayStore({ max: 500_000 }); // ≥ proofs per second × (iatWindow + iatLeeway)

function plainNode(
  verifier = createVerifier({
    issuer: 'https://id.example.com/oidc',
    audience: 'https://api.example.com',
    dpop: { replayStore },
  }),
) {
  const origin = 'https://api.example.com';
  return createServer(async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const auth = await verifier.authenticate({
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        method: req.method,
        url: `${origin}${req.url}`, // what the client addressed
        clientCertificate: (req.socket as TLSSocket).getPeerCertificate?.()?.raw,
      });
      res.end(JSON.stringify({ sub: auth.subject, bound: auth.confirmation }));
    } catch (err) {
      if (!isAuthError(err)) throw err;
      res.writeHead(err.status, err.headers).end(JSON.stringify(err.toJSON())); // DPoP-Nonce included
    }
  });
}

function behindProxy() {
  const app = express();
  app.use(
    requireAuth({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      origin: 'https://api.example.com',
      // The TLS-terminating proxy verifies client certificates and forwards them (RFC 9440),
      // and removes any Client-Cert header a client sent itself.
      mtls: { certificateHeader: 'client-cert' },
    }),
  );
  app.get('/orders', (req, res) => {
    res.json({ for: req.auth?.subject, certificate: req.auth?.confirmation?.['x5t#S256'] });
  });
  return app;
}

describe('docs/dpop.md', () => {
  const url = 'https://api.example.com/orders';

  it('mode required: a bound token with its proof passes; a stolen copy does not, nor a Bearer token', async () => {
    const app = dpopRequired();
    const key = await generateDpopKey();
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders' }, { dpop: key });
    const proof = createDpopProof({ key, method: 'GET', url, accessToken: token });
    const ok = await request(app)
      .get('/orders')
      .set({ authorization: `DPoP ${token}`, dpop: proof });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ orders: [], for: 'customer-42', boundTo: key.thumbprint });

    const thief = await generateDpopKey();
    const stolen = createDpopProof({ key: thief, method: 'GET', url, accessToken: token });
    const refused = await request(app)
      .get('/orders')
      .set({ authorization: `DPoP ${token}`, dpop: stolen });
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(
      'DPoP realm="api", error="invalid_token", error_description="The DPoP proof key does not match the key the access token is bound to", algs="ES256 EdDSA RS256 PS256"',
    );
    const replayed = await request(app)
      .get('/orders')
      .set({ authorization: `DPoP ${token}`, dpop: proof });
    expect(replayed.body.error).toBe('invalid_dpop_proof');

    const bearer = await request(app)
      .get('/orders')
      .set({ authorization: `Bearer ${await issuer.sign({ scope: 'read:orders' })}` });
    expect(bearer.status).toBe(401);
    expect(bearer.headers['www-authenticate']).toBe(
      'DPoP realm="api", error="invalid_token", error_description="This resource accepts only sender-constrained access tokens", algs="ES256 EdDSA RS256 PS256"',
    );
  });

  it('nonces: use_dpop_nonce with a DPoP-Nonce header, then the retry passes, on any instance with the secret', async () => {
    const a = plainNode(withNonces());
    const b = plainNode(withNonces());
    const servers = await Promise.all(
      [a, b].map((s) => new Promise<typeof s>((r) => s.listen(0, '127.0.0.1', () => r(s)))),
    );
    try {
      const key = await generateDpopKey('EdDSA');
      const token = await issuer.sign({ sub: 'customer-42' }, { dpop: key });
      const call = (server: (typeof servers)[number], nonce?: string) =>
        fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`, {
          headers: {
            authorization: `DPoP ${token}`,
            dpop: createDpopProof({ key, method: 'GET', url, accessToken: token, nonce }),
          },
        });
      const first = await call(servers[0]!);
      expect(first.status).toBe(401);
      expect(await first.json()).toMatchObject({ error: 'use_dpop_nonce' });
      const nonce = first.headers.get('dpop-nonce')!;
      expect((await call(servers[0]!, nonce)).status).toBe(200);
      expect((await call(servers[1]!, nonce)).status).toBe(200);
    } finally {
      for (const s of servers) s.close();
    }
  });

  it('a custom replay store is called once per proof and refuses a replay', async () => {
    const server = plainNode();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const key = await generateDpopKey();
      const token = await issuer.sign({ sub: 'customer-42' }, { dpop: key });
      const headers = {
        authorization: `DPoP ${token}`,
        dpop: createDpopProof({ key, method: 'GET', url, accessToken: token }),
      };
      const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
      expect((await fetch(at, { headers })).status).toBe(200);
      const again = await fetch(at, { headers });
      expect(again.status).toBe(401);
      expect(await again.json()).toMatchObject({ error: 'invalid_dpop_proof' });
      expect(sized.record('x', Date.now() + 1000)).toBe(true);
    } finally {
      server.close();
    }
  });

  describe('certificate-bound tokens', () => {
    const servers: { close(): void }[] = [];
    afterAll(() => {
      for (const s of servers) s.close();
    });

    it('over TLS: only the bound client certificate passes', async () => {
      const ca = await createTestCertificateAuthority();
      const serverCert = await generateTestCertificate({ ca, hosts: ['127.0.0.1'] });
      const alice = await generateTestCertificate({ ca, commonName: 'alice' });
      const mallory = await generateTestCertificate({ ca, commonName: 'mallory' });
      const app = plainNode();
      const tls = createHttpsServer(
        {
          cert: serverCert.certificate,
          key: serverCert.privateKey,
          ca: ca.certificate,
          requestCert: true,
          rejectUnauthorized: false,
        },
        (req, res) => app.emit('request', req, res),
      );
      servers.push(tls);
      await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
      const token = await issuer.sign({ sub: 'service-7' }, { certificate: alice.der });
      const call = (client?: { certificate: string; privateKey: string }) =>
        new Promise<number>((resolve, reject) => {
          const r = httpsRequest(
            {
              host: '127.0.0.1',
              port: (tls.address() as AddressInfo).port,
              path: '/orders',
              ca: ca.certificate,
              cert: client?.certificate,
              key: client?.privateKey,
              headers: { authorization: `Bearer ${token}` },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          r.on('error', reject);
          r.end();
        });
      expect(await call(alice)).toBe(200);
      expect(await call(mallory)).toBe(401);
      expect(await call()).toBe(401);
    });

    it('behind a proxy: the certificate from the Client-Cert header', async () => {
      const alice = await generateTestCertificate({ commonName: 'alice' });
      const token = await issuer.sign({ sub: 'service-7' }, { certificate: alice.der });
      const res = await request(behindProxy())
        .get('/orders')
        .set({ authorization: `Bearer ${token}`, 'client-cert': clientCertHeader(alice.der) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ for: 'service-7', certificate: alice.thumbprint });
      const none = await request(behindProxy())
        .get('/orders')
        .set({ authorization: `Bearer ${token}` });
      expect(none.status).toBe(401);
    });
  });
});
