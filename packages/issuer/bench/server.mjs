/**
 * One benchmark target in its own process. argv[2] selects it:
 *
 *   gatehouse  @gatehouse/issuer (built dist) on a SQLite file in a temporary directory, an M2M
 *              application whose role grants read:orders on https://orders.example.com, and an
 *              application enabled for token exchange with a user holding read:orders.
 *              BENCH_DATABASE picks another database (a postgres:// URL); BENCH_BASE_URL makes this
 *              process another instance of an issuer already running there (same public URL), and
 *              BENCH_SEED=0 skips the seed (the first instance did it). BENCH_TRACING=sdk registers
 *              OpenTelemetry's SDK first; BENCH_DIST loads another build (see registerTracing).
 *              BENCH_TELEMETRY is its `telemetry` settings as JSON (packages/issuer/bench/metrics.bench.mjs).
 *   baseline   oidc-provider alone with its in-memory adapter, one static confidential client and the
 *              same resource server (JWT access tokens, same RS256 key size).
 *
 * Prints {"url","clientId","clientSecret","resource", "adminToken"?, "exchange"?} as one JSON line when
 * ready.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RESOURCE = 'https://orders.example.com';
const ADMIN = { clientId: 'bench-admin', clientSecret: 'a'.repeat(43) };
const EXCHANGE = { clientId: 'bench-exchange', clientSecret: 'x'.repeat(43) };
const mode = process.argv[2];

/**
 * BENCH_TRACING=sdk: OpenTelemetry's SDK registered before the issuer is created, as an application
 * would (AsyncLocalStorage context manager, batch processor, every span sampled), exporting to an
 * exporter that drops what it is given (the cost measured is the issuer's and the SDK's, not a
 * collector's). BENCH_DIST: another build of the issuer (tracing.bench.mjs compares with one).
 */
async function registerTracing() {
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BatchSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const exporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] }),
  );
}

async function gatehouse() {
  if (process.env.BENCH_TRACING === 'sdk') await registerTracing();
  const { createIssuer } = await import(process.env.BENCH_DIST ?? '../dist/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const probe = await import('node:net').then(
    ({ createServer }) =>
      new Promise((resolve) => {
        const server = createServer();
        server.listen(0, '127.0.0.1', () => {
          const { port } = server.address();
          server.close(() => resolve(port));
        });
      }),
  );
  const own = `http://127.0.0.1:${probe}`;
  const baseUrl = process.env.BENCH_BASE_URL ?? own;
  const issuer = await createIssuer({
    baseUrl,
    ...(process.env.BENCH_DATABASE === undefined
      ? { dataDir: dir }
      : { database: process.env.BENCH_DATABASE }),
    admin: ADMIN,
    log: { level: 'silent' },
    passwords: { scryptCost: 1024 },
    // Throughput is what is measured: a load generator from one address is no abuse to limit (the
    // limits' counting, one statement per request, still runs).
    rateLimits: { managementPerClient: 10_000_000, tokenPerClient: 10_000_000, tokenPerAddress: 10_000_000 },
    ...(process.env.BENCH_TELEMETRY === undefined
      ? {}
      : { telemetry: JSON.parse(process.env.BENCH_TELEMETRY) }),
  });
  if (process.env.BENCH_SEED !== '0') {
    await issuer.seed({
      resources: [{ name: 'Orders', indicator: RESOURCE, scopes: ['read:orders'] }],
      roles: [
        { name: 'svc', type: 'MachineToMachine', scopes: [{ resource: RESOURCE, scope: 'read:orders' }] },
        { name: 'reader', type: 'User', scopes: [{ resource: RESOURCE, scope: 'read:orders' }] },
      ],
      applications: [
        {
          name: 'Bench',
          type: 'MachineToMachine',
          clientId: 'bench',
          clientSecret: 'b'.repeat(43),
          roles: ['svc'],
        },
        {
          name: 'Bench exchange',
          type: 'Traditional',
          clientId: EXCHANGE.clientId,
          clientSecret: EXCHANGE.clientSecret,
          redirectUris: ['http://127.0.0.1:8976/callback'],
          tokenExchangeEnabled: true,
        },
      ],
      users: [
        ...Array.from({ length: 50 }, (_, i) => ({ username: `user${i}`, email: `user${i}@example.com` })),
        { username: 'impersonated', roles: ['reader'] },
      ],
    });
  }
  await issuer.listen(probe, '127.0.0.1');
  const url = own;
  const res = await fetch(`${url}/oidc/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${ADMIN.clientId}:${ADMIN.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${baseUrl}/api` }),
  });
  const { access_token: adminToken } = await res.json();
  const users = await (
    await fetch(`${url}/api/users?pageSize=1`, { headers: { authorization: `Bearer ${adminToken}` } })
  ).json();
  const impersonated = await issuer.store.users.findByLogin('impersonated');
  return {
    url,
    clientId: 'bench',
    clientSecret: 'b'.repeat(43),
    resource: RESOURCE,
    adminToken,
    userId: users.items[0].id,
    exchange: { ...EXCHANGE, userId: impersonated.id },
    metricsPort: issuer.metricsAddress?.port,
  };
}

async function baseline() {
  const { default: Provider } = await import('oidc-provider');
  const jwk = {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: 'k1',
    alg: 'RS256',
    use: 'sig',
  };
  const probe = 0;
  const provider = new Provider('http://127.0.0.1/oidc', {
    clients: [
      {
        client_id: 'bench',
        client_secret: 'b'.repeat(43),
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        getResourceServerInfo: async () => ({
          scope: 'read:orders',
          audience: RESOURCE,
          accessTokenTTL: 3600,
          accessTokenFormat: 'jwt',
        }),
        useGrantedResource: async () => false,
      },
    },
    ttl: { ClientCredentials: 3600 },
  });
  const { createServer } = await import('node:http');
  const callback = provider.callback();
  const server = createServer((req, res) => {
    req.originalUrl = req.url;
    req.url = req.url.replace(/^\/oidc/, '') || '/';
    callback(req, res);
  });
  await new Promise((resolve) => server.listen(probe, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    clientId: 'bench',
    clientSecret: 'b'.repeat(43),
    resource: RESOURCE,
  };
}

const info = mode === 'gatehouse' ? await gatehouse() : await baseline();
process.stdout.write(`${JSON.stringify(info)}\n`);
