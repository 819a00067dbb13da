#!/usr/bin/env node
/**
 * `./dev bench [core|issuer|storage|redis|http|all]`: run the benchmarks (default: core and issuer; `storage`
 * needs PostgreSQL, `redis` needs redis-server and `http` starts a server process per sample, so they run
 * only when named or with `all`).
 * Each benchmark compares against a baseline measured in the same run and prints ratios.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** bench/http has its own dependencies (the peer libraries), installed outside the workspace. */
function installHttpBench() {
  if (existsSync(join(root, 'bench/http/node_modules'))) return;
  console.log('bench: installing bench/http dependencies (pnpm install --ignore-workspace)');
  spawnSync('pnpm', ['install', '--dir', 'bench/http', '--ignore-workspace', '--reporter=silent'], {
    cwd: root,
    stdio: 'inherit',
  });
}
const BENCHES = {
  core: { file: 'bench/core/verify.bench.mjs', about: '@gatehouse/core verify() vs crypto.verify and jose' },
  issuer: {
    file: 'packages/issuer/bench/issuer.bench.mjs',
    about: 'client-credentials tokens/s vs oidc-provider alone; Management API reads/s',
  },
  'issuer-tracing': {
    file: 'packages/issuer/bench/tracing.bench.mjs',
    about:
      "the issuer's traces at the token endpoint: no SDK vs SDK registered (BENCH_BEFORE_DIST: vs another build)",
  },
  'issuer-metrics': {
    file: 'packages/issuer/bench/metrics.bench.mjs',
    about:
      'client-credentials tokens/s with the issuer metrics off, on (no exporter) and on with Prometheus scraped',
  },
  storage: {
    file: 'packages/issuer/bench/storage.bench.mjs',
    about: 'issuer throughput: 1 instance on SQLite, 1 and 2 on PostgreSQL (needs PostgreSQL binaries)',
  },
  telemetry: {
    file: 'bench/core/telemetry.bench.mjs',
    about:
      'OpenTelemetry per verify(): absent vs the build before the hooks, spans and metrics on vs off (RS256, cached and uncached)',
  },
  dpop: {
    file: 'bench/core/dpop.bench.mjs',
    about: 'DPoP per request: core vs one proof signature and express-oauth2-jwt-bearer (needs bench/http)',
    setup: () => installHttpBench(),
  },
  'http-dpop': {
    file: 'bench/http/dpop.mjs',
    about: 'DPoP over HTTP on Express: Gatehouse vs express-oauth2-jwt-bearer, fresh proof per request',
    setup: () => installHttpBench(),
  },
  redis: {
    file: 'packages/redis/bench/replay.bench.mjs',
    about: '@gatehouse/redis record() vs a PING round trip and MemoryReplayStore (needs redis-server)',
  },
  runtimes: {
    file: 'bench/runtimes/run.mjs',
    about:
      "core's WebCrypto build vs jose.jwtVerify on Bun, Deno and workerd (binaries from the npm packages)",
  },
  'hono-node': {
    file: 'bench/runtimes/hono-node-micro.mjs',
    about:
      'what @gatehouse/hono adds per request in process, on @hono/node-server (Node) and app.fetch (Bun) (CPU ns vs bare Hono)',
  },
  hono: {
    file: 'bench/runtimes/hono-http.mjs',
    about:
      "Hono + @gatehouse/hono vs bare Hono, no-op middlewares and Hono's jwk middleware, on Node and Bun (autocannon, interleaved)",
    setup: () => installHttpBench(),
  },
  'nestjs-micro': {
    file: 'bench/http/nestjs-micro.mjs',
    about:
      'what the @gatehouse/nestjs guard adds per request with a cached token, in process (CPU ns vs bare Nest)',
    setup: () => installHttpBench(),
  },
  nestjs: {
    file: 'bench/http/nestjs.mjs',
    about:
      'NestJS + @gatehouse/nestjs vs bare Nest and a jose guard, Express and Fastify platforms (autocannon, interleaved)',
    setup: () => installHttpBench(),
  },
  http: {
    file: 'bench/http/run.mjs',
    about: 'adapters vs bare frameworks, hand-written jose and peer libraries (autocannon)',
    setup: () => installHttpBench(),
  },
};

const wanted = process.argv[2] ?? 'default';
const names =
  wanted === 'all' ? Object.keys(BENCHES) : wanted === 'default' ? ['core', 'dpop', 'issuer'] : [wanted];
let failed = false;
for (const name of names) {
  const bench = BENCHES[name];
  if (bench === undefined) {
    console.error(`bench: unknown benchmark "${name}" (${Object.keys(BENCHES).join(', ')}, all)`);
    process.exit(2);
  }
  console.log(`\n== ${name}: ${bench.about}`);
  bench.setup?.();
  const r = spawnSync(process.execPath, [join(root, bench.file)], { cwd: root, stdio: 'inherit' });
  failed ||= r.status !== 0;
}
process.exit(failed ? 1 : 0);
