/**
 * The API part of docs/troubleshooting.md, checked against the real thing: each output block marked
 * `<!-- api-case: name -->` must be exactly what core and the adapters say in that situation, produced
 * here against real loopback servers (an issuer on the page's port 3001 stands in for the page's
 * `localhost:3001`, and its messages are compared with the port and host the page shows).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createVerifier, InvalidTokenError, type KeySetError } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import { createDpopProof, generateDpopKey } from '@gatehouse/testing';
import express from 'express';
import request from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { useExampleIssuer } from './example-issuer.ts';

const PAGE = readFileSync(join(import.meta.dirname, '../../../../docs/troubleshooting.md'), 'utf8');
const cases = new Map(
  [...PAGE.matchAll(/<!-- api-case: ([\w-]+) -->\n<!-- output -->\n```\w*\n([\s\S]*?)\n```/g)].map(
    ([, name, body]) => [name!, body!],
  ),
);
const documented = (name: string): string => {
  const body = cases.get(name);
  if (body === undefined) throw new Error(`docs/troubleshooting.md has no api-case ${name}`);
  return body;
};

const issuer = await useExampleIssuer();
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) s.close();
});

/** A loopback issuer whose metadata is served at `/oidc` and names `named(origin)`. */
async function loopbackIssuer(named: (origin: string) => string): Promise<string> {
  let origin = '';
  const server = createServer((req, res) => {
    if (req.url !== '/oidc/.well-known/openid-configuration') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ issuer: named(origin), jwks_uri: `${origin}/oidc/jwks` }));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return origin;
}

/** The warning line `onWarning`'s default prints, with this run's port shown as the page's 3001. */
async function warningLine(options: { issuer: string }, port: string): Promise<string> {
  let line = '';
  const verifier = createVerifier({
    ...options,
    audience: 'https://api.example.com',
    onWarning: (w: KeySetError) => {
      line = `gatehouse: ${w.message}`;
    },
  });
  await verifier.warmUp().catch(() => {});
  return line.replaceAll(`:${port}`, ':3001');
}

describe('docs/troubleshooting.md, API part', () => {
  it('issuer-mismatch: 127.0.0.1 where the tokens and the metadata say localhost', async () => {
    const origin = await loopbackIssuer((o) => `${o.replace('127.0.0.1', 'localhost')}/oidc`);
    const port = new URL(origin).port;
    expect(await warningLine({ issuer: `${origin}/oidc` }, port)).toBe(documented('issuer-mismatch'));
  });

  it('metadata-not-found: a missing /oidc', async () => {
    const origin = await loopbackIssuer((o) => `${o}/oidc`);
    const port = new URL(origin).port;
    expect(await warningLine({ issuer: origin }, port)).toBe(documented('metadata-not-found'));
  });

  it('audience-mismatch: tokens for the audience with a trailing slash', async () => {
    let line = '';
    const verifier = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      onWarning: (w: KeySetError) => {
        line = `gatehouse: ${w.message}`;
      },
    });
    const token = await issuer.sign({ aud: 'https://api.example.com/' });
    const refused = await verifier.verify(token).then(
      () => undefined,
      (e: InvalidTokenError) => e,
    );
    expect(refused).toBeInstanceOf(InvalidTokenError);
    expect(refused?.reason).toBe('audience');
    expect(line).toBe(documented('audience-mismatch'));
  });

  it('mistyped-option', () => {
    let message = '';
    try {
      requireAuth({
        issuer: 'https://id.example.com/oidc',
        audience: 'https://api.example.com',
        jwksUrl: 'x',
      } as never);
    } catch (error) {
      message = `${(error as Error).name}: ${(error as Error).message}`;
    }
    expect(message).toBe(documented('mistyped-option'));
  });

  it('mistyped-call-option: a typo in the options of one call', async () => {
    const verifier = createVerifier({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      jwksUri: 'https://id.example.com/oidc/jwks',
    });
    const error = await verifier.verify('a.b.c', { scope: 'admin:all' } as never).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(`${error?.name}: ${error?.message}`).toBe(documented('mistyped-call-option'));
  });

  it('empty-scope', () => {
    let message = '';
    try {
      requireScope('');
    } catch (error) {
      message = `${(error as Error).name}: ${(error as Error).message}`;
    }
    expect(message).toBe(documented('empty-scope'));
  });

  it('htu: a proof for the public URL, checked against the URL the API sees behind a proxy', async () => {
    const app = express();
    app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));
    app.get('/orders', (_req, res) => {
      res.json([]);
    });
    const key = await generateDpopKey();
    const token = await issuer.sign({}, { dpop: key });
    const proof = createDpopProof({
      key,
      method: 'GET',
      url: 'https://api.example.com/orders',
      accessToken: token,
    });
    const res = await request(app)
      .get('/orders')
      .set({ authorization: `DPoP ${token}`, dpop: proof });
    expect(res.status).toBe(401);
    expect(`WWW-Authenticate: ${res.headers['www-authenticate']}`).toBe(documented('htu'));
  });

  it('documents exactly the cases above', () => {
    expect([...cases.keys()].sort()).toEqual([
      'audience-mismatch',
      'empty-scope',
      'htu',
      'issuer-mismatch',
      'metadata-not-found',
      'mistyped-call-option',
      'mistyped-option',
    ]);
  });
});
