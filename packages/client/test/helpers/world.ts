/**
 * A real `@gatehouse/issuer` on 127.0.0.1 with an in-memory database, behind a counting front server
 * (so tests can prove that a cache hit sends nothing), seeded with two API resources, a user holding
 * scopes of both, a public SPA client and a confidential client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createIssuer, type Issuer, type IssuerConfig } from '@gatehouse/issuer';

export const ORDERS = 'https://orders.example.com';
export const BILLING = 'https://billing.example.com/api';
/** Registered on the issuer, never served: Node tests read the redirect, they never follow it. */
export const REDIRECT = 'http://127.0.0.1:8976/callback';
export const PASSWORD = 'correct horse battery staple';
export const WEB_SECRET = 'web-secret-0123456789abcdefghijklmnopqrstuv';
export const AGENT_PASSWORD = 'agent passphrase 0123456789';

/** One request the issuer received. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
}

/** A started issuer. */
export interface World {
  readonly issuer: Issuer;
  readonly baseUrl: string;
  /** Every request the issuer received, in order (method and path, no query or body). */
  readonly seen: SeenRequest[];
  /** Token endpoint requests seen so far. */
  tokenRequests(): number;
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  /** Ids of the seeded users. */
  readonly users: { readonly alice: string; readonly agent: string };
  close(): Promise<void>;
}

class Sink extends Writable {
  override _write(_chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    callback();
  }
}

/** Extra application seeded by a test (e.g. an SPA whose redirect URI is a page server's). */
export interface ExtraApp {
  readonly name: string;
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
}

/** Start and seed an issuer (`issuerOptions`: extra settings, e.g. `dpop`). */
export async function startWorld(
  extraApps: readonly ExtraApp[] = [],
  issuerOptions: Partial<IssuerConfig> = {},
): Promise<World> {
  const front: Server = createServer();
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  const issuer = await createIssuer({
    baseUrl,
    database: ':memory:',
    passwords: { scryptCost: 1024 },
    log: { level: 'warn', destination: new Sink() },
    ...issuerOptions,
  });
  const seen: SeenRequest[] = [];
  front.on('request', (req, res) => {
    seen.push({ method: req.method ?? '', path: new URL(req.url ?? '/', baseUrl).pathname });
    issuer.handler(req, res);
  });
  await issuer.seed({
    resources: [
      { name: 'Orders', indicator: ORDERS, scopes: ['read:orders', 'write:orders'] },
      { name: 'Billing', indicator: BILLING, accessTokenTtl: 600, scopes: ['read:billing'] },
    ],
    roles: [
      {
        name: 'support',
        type: 'User',
        scopes: [
          { resource: ORDERS, scope: 'read:orders' },
          { resource: BILLING, scope: 'read:billing' },
        ],
      },
    ],
    users: [
      { username: 'alice', email: 'alice@example.com', password: PASSWORD, roles: ['support'] },
      { username: 'agent', email: 'agent@example.com', password: AGENT_PASSWORD, roles: ['support'] },
    ],
    applications: [
      {
        name: 'Console',
        type: 'SPA',
        clientId: 'console',
        redirectUris: [REDIRECT],
        postLogoutRedirectUris: ['http://127.0.0.1:8976/'],
        tokenExchangeEnabled: true,
      },
      {
        name: 'Web',
        type: 'Traditional',
        clientId: 'web',
        clientSecret: WEB_SECRET,
        redirectUris: [REDIRECT],
      },
      ...extraApps.map((app) => ({ type: 'SPA' as const, tokenExchangeEnabled: true, ...app })),
    ],
  });
  const alice = (await issuer.store.users.findByLogin('alice'))?.id;
  const agent = (await issuer.store.users.findByLogin('agent'))?.id;
  if (alice === undefined || agent === undefined) throw new Error('seeded users not found');
  const clientSecret = issuer.admin.adminClientSecret;
  if (clientSecret === undefined) throw new Error('no admin secret');
  return {
    issuer,
    baseUrl,
    seen,
    tokenRequests: () => seen.filter((r) => r.method === 'POST' && r.path === '/oidc/token').length,
    admin: { clientId: issuer.admin.adminClientId, clientSecret },
    users: { alice, agent },
    close: async () => {
      await new Promise((resolve) => front.close(resolve));
      await issuer.close();
    },
  };
}

/** A Management API token of the bootstrap administrator. */
export async function adminToken(world: World): Promise<string> {
  const res = await fetch(`${world.baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(world.admin.clientId)}:${encodeURIComponent(world.admin.clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${world.baseUrl}/api` }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || body.access_token === undefined) throw new Error(`admin token: ${res.status}`);
  return body.access_token;
}

/** What `POST /api/subject-tokens` takes. */
export interface SubjectTokenRequest {
  readonly userId: string;
  readonly actorId?: string;
  readonly applicationId?: string;
}

/** Mint a subject token for impersonation through the Management API (as the integrator's backend does). */
export async function mintSubjectToken(world: World, request: SubjectTokenRequest): Promise<string> {
  const res = await fetch(`${world.baseUrl}/api/subject-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminToken(world)}`, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  const body = (await res.json()) as { subjectToken?: string };
  if (res.status !== 201 || body.subjectToken === undefined) throw new Error(`subject token: ${res.status}`);
  return body.subjectToken;
}
