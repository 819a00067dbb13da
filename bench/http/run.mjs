#!/usr/bin/env node
/**
 * HTTP benchmark of the Gatehouse adapters (Express, Fastify, Koa), each against
 *
 *   bare               the framework alone (no auth): the ceiling
 *   jose               a hand-written jose middleware in the same framework (createRemoteJWKSet +
 *                      jwtVerify with issuer, audience, algorithms, required exp + sub, and a scope check)
 *   peers              what users would pick instead: express-oauth2-jwt-bearer, express-jwt + jwks-rsa,
 *                      @fastify/jwt + get-jwks, koa-jwt + jwks-rsa
 *
 * Gatehouse runs twice: `gatehouse` with the result cache off (`cache: false`), and `gatehouse-cached`
 * with it on (every request repeats the same token). ES256 and RS256 tokens, a JWKS served on loopback
 * by this process.
 *
 * Each sample is a fresh server process pinned to core 0 (taskset), loaded by autocannon pinned to core 1
 * (warm-up, then the measured run). Before loading, each server is checked: the token gets 200 with the
 * right `sub`, and (except bare) a tampered token gets 401 and a token without the scope 403.
 * Configurations rotate within each round; ratios are paired per round; medians are reported.
 *
 * Run: node bench/http/run.mjs   (after `pnpm build` and installing bench/http, see README.md)
 * Env: BENCH_ROUNDS (5), BENCH_DURATION (10 s), BENCH_WARMUP (3 s), BENCH_CONNECTIONS (10),
 *      BENCH_FRAMEWORKS (express,fastify,koa; also nestjs-express, nestjs-fastify), BENCH_ALGS (ES256,RS256),
 *      BENCH_CONFIGS (all; comma list), BENCH_RESULT (http: the results' file name).
 * Writes bench/results/<BENCH_RESULT>.json and .md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingBuilds, versionOf, warnStaleBuilds } from './lib/builds.mjs';
import { ALGORITHMS, AUDIENCE, SCOPE, startIssuer } from './lib/issuer.mjs';
import { preflight } from './lib/preflight.mjs';
import { canPin, runLoad, startServer, stopServer } from './lib/process.mjs';
import { checkTargets, summarize, toMarkdown } from './lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const resultsDir = join(root, 'bench/results');

const list = (value, all) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : all;
const int = (name, fallback, min) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < min) {
    console.error(`${name} must be a number >= ${min}`);
    process.exit(2);
  }
  return value;
};
/** Frameworks with an app in apps/, and the Gatehouse package each one measures. */
const PACKAGES = {
  express: 'express',
  fastify: 'fastify',
  koa: 'koa',
  'nestjs-express': 'nestjs',
  'nestjs-fastify': 'nestjs',
};
const resultName = process.env.BENCH_RESULT ?? 'http';
const settings = {
  rounds: int('BENCH_ROUNDS', 5, 1),
  duration: int('BENCH_DURATION', 10, 1),
  warmup: int('BENCH_WARMUP', 3, 0),
  connections: int('BENCH_CONNECTIONS', 10, 1),
  frameworks: list(process.env.BENCH_FRAMEWORKS, ['express', 'fastify', 'koa']),
  algorithms: list(process.env.BENCH_ALGS, ALGORITHMS),
  configs: list(process.env.BENCH_CONFIGS, undefined),
  pinned: canPin,
};
settings.smoke = settings.duration < 5 || settings.rounds < 3;

// --- preconditions ---------------------------------------------------------------------------------
const packages = [...new Set(['core', ...settings.frameworks.map((name) => PACKAGES[name] ?? name)])];
const missing = missingBuilds(packages);
for (const name of settings.frameworks) {
  if (!(name in PACKAGES)) missing.push(`BENCH_FRAMEWORKS: unknown framework ${name}`);
}
if (!/^[\w-]+$/.test(resultName)) missing.push('BENCH_RESULT: letters, digits, - and _ only');
for (const alg of settings.algorithms) {
  if (!ALGORITHMS.includes(alg))
    missing.push(`BENCH_ALGS: unknown algorithm ${alg} (${ALGORITHMS.join(', ')})`);
}
if (missing.length > 0) {
  console.error(`bench/http: cannot run yet:\n  ${missing.join('\n  ')}`);
  process.exit(2);
}
// The dist is what runs: say so when a package's sources changed after its last build.
warnStaleBuilds(packages);

// --- the plan: every (framework, alg, config) of one round; bare once per framework -----------------
const plan = [];
for (const framework of settings.frameworks) {
  const { CONFIGS } = await import(`./apps/${framework}.mjs`);
  for (const [config, kind] of Object.entries(CONFIGS)) {
    if (settings.configs && !settings.configs.includes(config) && kind !== 'bare' && kind !== 'jose')
      continue;
    if (kind === 'bare') plan.push({ framework, config, kind, alg: null });
    else for (const alg of settings.algorithms) plan.push({ framework, config, kind, alg });
  }
}
/** Round r starts at a different place in the plan, so no configuration always runs first or last. */
const rotated = (r) => {
  const offset = Math.floor((r * plan.length) / settings.rounds);
  return [...plan.slice(offset), ...plan.slice(0, offset)];
};

// --- one sample --------------------------------------------------------------------------------------
function load(url, token) {
  const input = {
    url,
    headers: { authorization: `Bearer ${token}` },
    connections: settings.connections,
    warmup: settings.warmup,
    duration: settings.duration,
  };
  return runLoad('load.mjs', input, (settings.warmup + settings.duration + 30) * 1000);
}

async function sample(round, item, issuer) {
  const alg = item.alg ?? settings.algorithms[0];
  const tokens = issuer.tokens[alg];
  const spec = {
    ...item,
    alg,
    issuer: issuer.issuer,
    audience: AUDIENCE,
    jwksUri: issuer.jwksUri,
    scope: SCOPE,
  };
  const result = {
    round,
    ...item,
    ok: false,
    rps: null,
    latencyP50: null,
    latencyP99: null,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
  };
  issuer.resetFetches();
  let server;
  try {
    server = await startServer(spec);
    const url = `http://127.0.0.1:${server.port}/orders`;
    const problem = await preflight(url, item.kind !== 'bare', tokens);
    if (problem) throw new Error(`check failed: ${problem}`);
    const { warmup, measured } = await load(url, tokens.good);
    Object.assign(result, measured, { ok: true });
    if (warmup) {
      result.warmupRps = warmup.rps;
      result.warmupNon2xx = warmup.non2xx + warmup.errors + warmup.timeouts;
      result.non2xx += result.warmupNon2xx;
    }
  } catch (error) {
    result.failure = error.message;
  } finally {
    if (server) await stopServer(server.child);
  }
  result.jwksFetches = issuer.fetches();
  return result;
}

// --- run ---------------------------------------------------------------------------------------------
const versions = Object.fromEntries(
  [
    'express',
    'fastify',
    'koa',
    'jose',
    'autocannon',
    'express-oauth2-jwt-bearer',
    'express-jwt',
    'jwks-rsa',
    '@fastify/jwt',
    'get-jwks',
    'koa-jwt',
  ].map((name) => [name, versionOf(name)]),
);
if (packages.includes('nestjs')) {
  for (const name of ['@nestjs/core', '@nestjs/platform-express', '@nestjs/platform-fastify'])
    versions[name] = versionOf(name, join(root, 'packages/nestjs'));
}
for (const name of packages) {
  versions[`@gatehouse/${name}`] = JSON.parse(
    readFileSync(join(root, `packages/${name}/package.json`), 'utf8'),
  ).version;
}

const perSample = settings.warmup + settings.duration + 1;
console.log(
  `bench/http: ${settings.rounds} round(s) × ${plan.length} samples, ${settings.warmup} s + ${settings.duration} s each ` +
    `(≈ ${Math.ceil((settings.rounds * plan.length * perSample) / 60)} min), ${settings.connections} connections, ` +
    (settings.pinned ? 'server on core 0, autocannon on core 1' : 'NOT pinned (taskset missing or 1 core)'),
);
if (settings.smoke) console.log('bench/http: short run: the figures only show that the harness works');

const issuer = await startIssuer();
const samples = [];
const base = {
  node: process.version,
  cpu: `${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores)`,
  settings,
  versions,
};
mkdirSync(resultsDir, { recursive: true });
try {
  for (let r = 0; r < settings.rounds; r++) {
    for (const item of rotated(r)) {
      const s = await sample(r, item, issuer);
      samples.push(s);
      const label = `${item.framework} ${item.alg ?? '-'} ${item.config}`.padEnd(48);
      const figures = s.ok
        ? `${String(Math.round(s.rps)).padStart(7)} req/s  p99 ${s.latencyP99} ms  non-2xx ${s.non2xx}  jwks fetches ${s.jwksFetches}`
        : `FAILED: ${s.failure}`;
      console.log(`[${r + 1}/${settings.rounds}] ${label} ${figures}`);
    }
    writeFileSync(
      join(resultsDir, `${resultName}.tmp.json`),
      `${JSON.stringify({ ...base, samples }, null, 2)}\n`,
    );
  }
} finally {
  await issuer.close();
}

const summary = summarize(samples, settings.frameworks, settings.algorithms);
const targets = checkTargets(summary);
const result = { ...base, date: new Date().toISOString(), summary, targets, samples };
writeFileSync(join(resultsDir, `${resultName}.json`), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(join(resultsDir, `${resultName}.md`), toMarkdown(result));

console.log('\ntargets:');
for (const t of targets) {
  const value =
    typeof t.value === 'number' && !Number.isInteger(t.value) ? `${t.value.toFixed(2)}x` : String(t.value);
  console.log(`  ${t.pass ? 'PASS' : 'MISS'}  ${t.framework.padEnd(8)} ${t.alg}  ${t.target}: ${value}`);
}
console.log(`\nwrote bench/results/${resultName}.json and bench/results/${resultName}.md`);
