/**
 * Under a base path (`baseUrl` `http://127.0.0.1:<port>/auth`), every route a span names carries it:
 * the provider's, the Management API's and the front door's own; the request log lines show the same
 * paths (the base path is not an interaction id to mask). Routing does not depend on the storage
 * driver: SQLite only.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssuer, type Issuer } from '../../src/index.js';
import { adminToken, api, freePort, LogCapture } from '../helpers/issuer.js';
import { startTracing, type Tracing } from '../helpers/tracing.js';

describe('under a base path', () => {
  let tracing: Tracing;
  let issuer: Issuer;
  let baseUrl: string;
  const logs = new LogCapture();

  beforeAll(async () => {
    tracing = startTracing();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}/auth`;
    issuer = await createIssuer({ baseUrl, database: ':memory:', log: { level: 'info', destination: logs } });
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
    // Each request's line is written once its answer is sent: wait for the three.
    const paths = () =>
      logs.lines
        .map((line) => JSON.parse(line) as { event?: string; path?: string })
        .filter((line) => line.event === 'http')
        .map((line) => line.path);
    await expect.poll(paths).toHaveLength(3);
    expect(paths()).toEqual(['/auth/oidc/token', '/auth/api/users', '/auth/health']);
  });
});
