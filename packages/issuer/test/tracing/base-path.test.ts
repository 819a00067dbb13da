/**
 * Under a base path (`baseUrl` `http://127.0.0.1:<port>/auth`), every route a span names carries it:
 * the provider's, the Management API's and the front door's own. Routing does not depend on the
 * storage driver: SQLite only.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssuer, type Issuer } from '../../src/index.js';
import { adminToken, api, freePort } from '../helpers/issuer.js';
import { startTracing, type Tracing } from '../helpers/tracing.js';

describe('under a base path', () => {
  let tracing: Tracing;
  let issuer: Issuer;
  let baseUrl: string;

  beforeAll(async () => {
    tracing = startTracing();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}/auth`;
    issuer = await createIssuer({ baseUrl, database: ':memory:', log: { level: 'silent' } });
    await issuer.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await issuer?.close();
    await tracing.stop();
  });

  it('names the routes with the base path', async () => {
    const t = {
      baseUrl,
      admin: { clientId: issuer.admin.adminClientId, clientSecret: issuer.admin.adminClientSecret! },
    };
    const token = await adminToken(t);
    expect((await api(t, token, 'GET', '/users')).status).toBe(200);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    const servers = (await tracing.spans()).filter((span) => span.kind === SpanKind.SERVER);
    expect(servers.map((span) => span.name)).toEqual([
      'POST /auth/oidc/token',
      'GET /auth/api/users',
      'GET /auth/health',
    ]);
    expect(servers.map((span) => span.attributes['url.path'])).toEqual([
      '/auth/oidc/token',
      '/auth/api/users',
      '/auth/health',
    ]);
  });
});
