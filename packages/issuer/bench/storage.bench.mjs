#!/usr/bin/env node
/**
 * Storage benchmark: the issuer's throughput on each storage, with ratios measured in one run.
 *
 * Setups, all started fresh for each round and running side by side; the load goes to one at a time,
 * in BENCH_SLICES short slices per workload (the first setup rotating), so a drift of the machine's
 * speed during the round weighs on every setup alike:
 *   sqlite    one instance on a SQLite file (the default);
 *   pg        one instance on PostgreSQL;
 *   pg×2      two instances on one PostgreSQL database (same public URL), the load alternating
 *             between them as a round-robin load balancer would send it.
 * Workloads, BENCH_CONCURRENCY requests in flight:
 *   client credentials   POST /oidc/token grant_type=client_credentials (RS256 JWT for a resource);
 *   token exchange       POST /oidc/token RFC 8693 with a single-use subject token per request
 *                        (minted beforehand through the Management API, not timed).
 * Placement: the issuer processes run on core 0 and this process (the load generator) on core 1,
 * with taskset, as issuer.bench.mjs places its targets; the PostgreSQL server runs wherever the
 * scheduler puts it. An issuer so has one core in every setup: on SQLite its database work runs on
 * that core, on PostgreSQL in the server's processes — as in a deployment where the database has a
 * host of its own. BENCH_PIN=0 runs everything unpinned on the machine's cores (issuer, database
 * and load generator sharing them, as on one small box) and writes storage-shared.json instead.
 * Ratios are against sqlite, paired per round. For PostgreSQL the database itself is observed while
 * the load runs: its client connections (pg_stat_activity, the highest sample), the round trip of
 * `SELECT 1` from this process (median and p95), and with pg_stat_statements (loaded in the throwaway
 * cluster) the statements per request and their mean execution time inside the server.
 *
 * PostgreSQL: a throwaway cluster (test/setup/cluster.ts, Debian's postgresql binaries) unless
 * BENCH_DATABASE_URL names a server to use (the benchmark creates and drops databases on it).
 *
 * Run: pnpm --filter @gatehouse/issuer build && node packages/issuer/bench/storage.bench.mjs
 * Env: BENCH_ROUNDS (3), BENCH_DURATION (6 s measured per setup, workload and round, in slices),
 * BENCH_SLICES (6), BENCH_WARMUP (1 s), BENCH_CONCURRENCY (8), BENCH_PIN (1), BENCH_SETUPS (all, e.g.
 * "sqlite,pg"; sqlite first).
 * Prints a Markdown table and writes packages/issuer/bench/results/storage.json (storage-shared.json
 * with BENCH_PIN=0).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { load, rotated } from './load.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DURATION = Number(process.env.BENCH_DURATION ?? 6) * 1000;
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SETUPS = process.env.BENCH_SETUPS?.split(',') ?? ['sqlite', 'pg', 'pg×2'];
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

let cluster;
let serverUrl = process.env.BENCH_DATABASE_URL;
let serverVersion = 'external';
if (serverUrl === undefined) {
  // A TypeScript module run as is: Node ≥ 22.18 strips its types (the repository pins Node 24).
  const { startCluster } = await import('../test/setup/cluster.ts').catch((err) => {
    console.error(
      `bench: cannot load test/setup/cluster.ts (${err.code ?? err.message}); use Node ≥ 22.18 or set BENCH_DATABASE_URL`,
    );
    process.exit(2);
  });
  cluster = await startCluster('gatehouse_bench', ['shared_preload_libraries=pg_stat_statements']);
  serverUrl = cluster.url;
  serverVersion = cluster.version;
}
process.on('exit', () => cluster?.stop());
const pin =
  process.env.BENCH_PIN !== '0' && spawnSync('taskset', ['--version']).status === 0 && cpus().length >= 2;
// This process, every thread (the load and the database sampler), on core 1; the issuers on core 0.
// After the cluster started: its server is not pinned.
if (pin) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const withDatabase = (url, database) => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
};
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
let databases = 0;
async function freshDatabase() {
  const name = `bench_${process.pid}_${++databases}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // Statement statistics, where the server has the extension loaded (the throwaway cluster does).
  const statements = await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').then(
    () => client.query('SELECT 1 FROM pg_stat_statements LIMIT 1').then(() => true),
    () => false,
  );
  await client.end();
  return { name, url, statements };
}

async function startTarget(env) {
  const [command, args] = pin
    ? ['taskset', ['-c', '0', process.execPath, join(here, 'server.mjs'), 'gatehouse']]
    : [process.execPath, [join(here, 'server.mjs'), 'gatehouse']];
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let buffer = '';
  const info = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]));
    });
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  return {
    ...info,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** Start a setup; resolves to its instances and, for PostgreSQL, its database. */
async function startSetup(setup) {
  if (setup === 'sqlite') return { instances: [await startTarget({})], database: undefined };
  const database = await freshDatabase();
  const first = await startTarget({ BENCH_DATABASE: database.url });
  const instances = [first];
  if (setup === 'pg×2')
    instances.push(
      await startTarget({ BENCH_DATABASE: database.url, BENCH_BASE_URL: first.url, BENCH_SEED: '0' }),
    );
  return { instances, database };
}

const basic = (id, secret) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

const clientCredentials = (instances) => {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: instances[0].resource,
    scope: 'read:orders',
  }).toString();
  const headers = { ...form, authorization: basic(instances[0].clientId, instances[0].clientSecret) };
  return async (i) => {
    const res = await fetch(`${instances[i % instances.length].url}/oidc/token`, {
      method: 'POST',
      headers,
      body,
    });
    const json = await res.json();
    return res.status === 200 && typeof json.access_token === 'string';
  };
};

/** Mint `count` subject tokens through the Management API (not timed). */
async function mint(instance, count) {
  const tokens = [];
  const headers = { authorization: `Bearer ${instance.adminToken}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ userId: instance.exchange.userId });
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) {
        const res = await fetch(`${instance.url}/api/subject-tokens`, { method: 'POST', headers, body });
        if (res.status !== 201) throw new Error(`minting failed: ${res.status}`);
        tokens.push((await res.json()).subjectToken);
      }
    }),
  );
  return tokens;
}

const tokenExchange = (instances, tokens) => {
  const { clientId, clientSecret } = instances[0].exchange;
  const headers = { ...form, authorization: basic(clientId, clientSecret) };
  return async (i) => {
    const token = tokens.pop();
    if (token === undefined) return undefined;
    const res = await fetch(`${instances[i % instances.length].url}/oidc/token`, {
      method: 'POST',
      headers,
      body: new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        subject_token: token,
        subject_token_type: ACCESS_TOKEN,
        resource: instances[0].resource,
      }).toString(),
    });
    const json = await res.json();
    return res.status === 200 && typeof json.access_token === 'string';
  };
};

/**
 * Watch the database during `work` (a load): the requests and seconds, and for PostgreSQL the highest
 * client-connection count, the SELECT 1 round trips and the issuer's statements (count, total ms).
 */
async function observe(database, work) {
  if (database === undefined) return { ...(await work()), db: undefined };
  const probe = new pg.Client({ connectionString: database.url, application_name: 'gatehouse-bench' });
  await probe.connect();
  // The issuer's statements in this database, without the probe's own (SELECT 1, pg_stat_* reads).
  const statements = async () =>
    database.statements
      ? (
          await probe.query(
            `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(total_exec_time), 0) AS ms FROM pg_stat_statements
             WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
               AND query NOT ILIKE '%pg_stat%' AND query <> 'SELECT $1'`,
          )
        ).rows[0]
      : undefined;
  if (database.statements) await probe.query('SELECT pg_stat_statements_reset()');
  // The sampler runs on a thread of its own, so the load generator's busy event loop does not count
  // in the round trips it measures.
  const sampler = new Worker(SAMPLER, { eval: true, workerData: { pg: PG, url: database.url } });
  const sampled = new Promise((resolve, reject) => {
    sampler.once('message', resolve);
    sampler.once('error', reject);
  });
  const { done, seconds } = await work();
  sampler.postMessage('stop');
  const { connections, latencies } = await sampled;
  await sampler.terminate();
  const counted = await statements();
  await probe.end();
  return {
    done,
    seconds,
    db: {
      connections,
      latencies,
      calls: counted === undefined ? undefined : Number(counted.calls),
      ms: counted === undefined ? undefined : Number(counted.ms),
    },
  };
}

/** The slices of one setup and workload, added up: its rate and what its database saw. */
function total(slices) {
  const done = slices.reduce((sum, s) => sum + s.done, 0);
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const rate = done / seconds;
  if (slices[0].db === undefined) return { rate, db: undefined };
  const latencies = slices.flatMap((s) => s.db.latencies).sort((x, y) => x - y);
  const calls = slices.some((s) => s.db.calls === undefined)
    ? undefined
    : slices.reduce((sum, s) => sum + s.db.calls, 0);
  const ms = calls === undefined ? undefined : slices.reduce((sum, s) => sum + s.db.ms, 0);
  return {
    rate,
    db: {
      connections: Math.max(...slices.map((s) => s.db.connections)),
      selectOneMedianMs: latencies[latencies.length >> 1],
      selectOneP95Ms: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.95))],
      statementsPerRequest: calls === undefined ? undefined : calls / done,
      statementMeanMs: calls === undefined || calls === 0 ? undefined : ms / calls,
    },
  };
}

/** Each setup's total over SLICES slices of DURATION / SLICES, the setups taking turns (first rotating). */
async function interleaved(running, round, requestOf) {
  const slices = Object.fromEntries(SETUPS.map((setup) => [setup, []]));
  for (let slice = 0; slice < SLICES; slice++)
    for (const setup of rotated(SETUPS, slice + round)) {
      const { database } = running[setup];
      slices[setup].push(
        await observe(database, () => load(DURATION / SLICES, requestOf(setup), CONCURRENCY)),
      );
    }
  return Object.fromEntries(SETUPS.map((setup) => [setup, total(slices[setup])]));
}

const PG = createRequire(import.meta.url).resolve('pg');
/** Every 100 ms: one `SELECT 1` round trip and the issuer's connections to the database (the bench's excluded). */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const pg = require(workerData.pg);
(async () => {
  const client = new pg.Client({ connectionString: workerData.url, application_name: 'gatehouse-bench' });
  await client.connect();
  let running = true;
  parentPort.once('message', () => { running = false; });
  const latencies = [];
  let connections = 0;
  while (running) {
    const started = performance.now();
    await client.query('SELECT 1');
    latencies.push(performance.now() - started);
    const { rows } = await client.query(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND application_name <> 'gatehouse-bench'",
    );
    connections = Math.max(connections, Number(rows[0].n));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await client.end();
  parentPort.postMessage({ connections, latencies });
})();
`;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const rounds = [];
for (let round = 0; round < ROUNDS; round++) {
  const result = {};
  const running = {};
  try {
    for (const setup of SETUPS) running[setup] = await startSetup(setup);
    const cc = Object.fromEntries(
      SETUPS.map((setup) => [setup, clientCredentials(running[setup].instances)]),
    );
    for (const setup of SETUPS) await load(WARMUP, cc[setup], CONCURRENCY);
    const credentials = await interleaved(running, round, (setup) => cc[setup]);
    // Enough single-use subject tokens for the warm-up and the measurement, with margin.
    const tokens = {};
    for (const setup of SETUPS) {
      const needed =
        Math.ceil(credentials[setup].rate * ((DURATION + WARMUP) / 1000) * 1.5) + CONCURRENCY * (SLICES + 1);
      tokens[setup] = await mint(running[setup].instances[0], needed);
    }
    const te = Object.fromEntries(
      SETUPS.map((setup) => [setup, tokenExchange(running[setup].instances, tokens[setup])]),
    );
    for (const setup of SETUPS) await load(WARMUP, te[setup], CONCURRENCY);
    const exchange = await interleaved(running, round, (setup) => te[setup]);
    for (const setup of SETUPS)
      result[setup] = {
        clientCredentials: credentials[setup].rate,
        tokenExchange: exchange[setup].rate,
        db:
          running[setup].database === undefined
            ? undefined
            : { clientCredentials: credentials[setup].db, tokenExchange: exchange[setup].db },
      };
  } finally {
    for (const { instances, database } of Object.values(running)) {
      await Promise.all(instances.map((instance) => instance.stop()));
      if (database !== undefined) await admin.query(`DROP DATABASE ${database.name} WITH (FORCE)`);
    }
  }
  for (const setup of SETUPS.slice(1)) {
    result[setup].clientCredentialsRatio = result[setup].clientCredentials / result.sqlite.clientCredentials;
    result[setup].tokenExchangeRatio = result[setup].tokenExchange / result.sqlite.tokenExchange;
  }
  rounds.push(result);
  const brief = Object.fromEntries(
    SETUPS.map((setup) => [
      setup,
      `${Math.round(result[setup].clientCredentials)} cc/s, ${Math.round(result[setup].tokenExchange)} te/s`,
    ]),
  );
  process.stderr.write(`round ${round + 1}/${ROUNDS}: ${JSON.stringify(brief)}\n`);
}
await admin.end();

const summarize = (setup) => {
  const pick = (get) => median(rounds.map((r) => get(r[setup])));
  const db = (workload) =>
    setup === 'sqlite'
      ? undefined
      : {
          connectionsMax: Math.max(...rounds.map((r) => r[setup].db[workload].connections)),
          selectOneMedianMs: pick((s) => s.db[workload].selectOneMedianMs),
          selectOneP95Ms: pick((s) => s.db[workload].selectOneP95Ms),
          statementsPerRequest: pick((s) => s.db[workload].statementsPerRequest ?? Number.NaN),
          statementMeanMs: pick((s) => s.db[workload].statementMeanMs ?? Number.NaN),
        };
  return {
    clientCredentialsPerSecond: pick((s) => s.clientCredentials),
    tokenExchangesPerSecond: pick((s) => s.tokenExchange),
    clientCredentialsRatio: setup === 'sqlite' ? 1 : pick((s) => s.clientCredentialsRatio),
    tokenExchangeRatio: setup === 'sqlite' ? 1 : pick((s) => s.tokenExchangeRatio),
    database:
      setup === 'sqlite'
        ? undefined
        : { clientCredentials: db('clientCredentials'), tokenExchange: db('tokenExchange') },
  };
};
const summary = {
  node: process.version,
  postgres: serverVersion,
  cpus: cpus().length,
  rounds: ROUNDS,
  durationMs: DURATION,
  slices: SLICES,
  concurrency: CONCURRENCY,
  poolSize: 10,
  pinned: pin,
  setups: Object.fromEntries(SETUPS.map((setup) => [setup, summarize(setup)])),
  rawRounds: rounds,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results', pin ? 'storage.json' : 'storage-shared.json'),
  `${JSON.stringify(summary, null, 2)}\n`,
);

const f = (n) => n.toFixed(0);
const r = (n) => `${n.toFixed(2)}x`;
const dbCell = (db) =>
  db === undefined
    ? '—'
    : `${db.connectionsMax} connections; SELECT 1 round trip ${db.selectOneMedianMs.toFixed(2)} ms (p95 ${db.selectOneP95Ms.toFixed(2)})` +
      (Number.isNaN(db.statementsPerRequest)
        ? ''
        : `; ${db.statementsPerRequest.toFixed(1)} statements/request, ${(db.statementMeanMs * 1000).toFixed(0)} µs each in the server`);
const lines = [
  `| Setup | Client credentials | Ratio | Token exchange | Ratio | Database during client credentials | Database during token exchange |`,
  '|---|---|---|---|---|---|---|',
  ...SETUPS.map((setup) => {
    const s = summary.setups[setup];
    return `| ${setup === 'sqlite' ? '1 instance, SQLite' : setup === 'pg' ? '1 instance, PostgreSQL' : '2 instances, PostgreSQL'} | ${f(s.clientCredentialsPerSecond)}/s | ${r(s.clientCredentialsRatio)} | ${f(s.tokenExchangesPerSecond)}/s | ${r(s.tokenExchangeRatio)} | ${dbCell(s.database?.clientCredentials)} | ${dbCell(s.database?.tokenExchange)} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
