#!/usr/bin/env node
/**
 * @gatehouse/redis record() against its baselines, on one real local redis-server, one node-redis
 * client, interleaved round-robin (order rotated per round):
 *
 *   ping     client.ping(): one loopback round trip, the floor for anything that asks Redis
 *   set      client.set(key, '1', { PX, NX }) sent directly: the command the store sends, without the store
 *   record   createRedisReplayStore({ client }).record(freshId, now + 5 min): one SET … NX PX
 *   memory   new MemoryReplayStore().record(freshId, now + 5 min), awaited as the verifier awaits it
 *
 * Latency: one call in flight, each call timed alone; mean and median µs per call per round. The target
 * is record ≈ ping (ratio ≈ 1.0): the store costs at most one round trip per request. Throughput: the
 * same calls with BENCH_CONCURRENCY in flight (node-redis pipelines them on its one connection).
 * Ratios are computed per round (same conditions) and reported as medians over rounds. The number of
 * SET commands Redis executed per record() is read from INFO commandstats.
 *
 * Redis: a throwaway redis-server (test/helpers/redis-server.ts, Debian's redis-server) unless
 * BENCH_REDIS_URL names one to use (the benchmark writes keys under gatehouse:bench:, with a ttl).
 *
 * Run: ./dev bench redis (or pnpm --filter @gatehouse/redis... build, then node this file).
 * Env: BENCH_ROUNDS (8), BENCH_CALLS (3000 timed calls per benchmark per round), BENCH_CONCURRENCY (32),
 * BENCH_THROUGHPUT_MS (500 per benchmark per round). Prints a Markdown table and writes
 * packages/redis/bench/results/replay.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';

const here = dirname(fileURLToPath(import.meta.url));
const nodeRedis = JSON.parse(readFileSync(join(here, '../node_modules/redis/package.json'), 'utf8')).version;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const THROUGHPUT_MS = Number(process.env.BENCH_THROUGHPUT_MS ?? 500);

const { createRedisReplayStore } = await import(join(here, '../dist/index.js')).catch(() => {
  console.error('bench: packages/redis/dist is missing: run pnpm build (./dev bench redis does) first');
  process.exit(2);
});
const { MemoryReplayStore } = await import(join(here, '../../core/dist/index.js'));

let server;
let url = process.env.BENCH_REDIS_URL;
if (url === undefined) {
  // A TypeScript module run as is: Node ≥ 22.18 strips its types (the repository pins Node 24).
  const { startRedisServer } = await import('../test/helpers/redis-server.ts').catch((err) => {
    console.error(
      `bench: cannot load test/helpers/redis-server.ts (${err.code ?? err.message}); use Node ≥ 22.18 or set BENCH_REDIS_URL`,
    );
    process.exit(2);
  });
  server = await startRedisServer();
  url = server.url;
}

const client = await createClient({ url })
  .on('error', (err) => console.error('bench: redis client error:', err.message))
  .connect();
const info = String(await client.sendCommand(['INFO', 'server']));
const redisVersion = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
const store = createRedisReplayStore({ client, keyPrefix: 'gatehouse:bench:' });
const memory = new MemoryReplayStore({ max: 1_000_000 });

// Fresh ids, made ahead so that no benchmark pays for randomBytes inside its timing.
const POOL = 1 << 16;
const ids = Array.from({ length: POOL }, () => randomBytes(24).toString('base64url'));
let next = 0;
const freshId = () => `${ids[next++ & (POOL - 1)]}.${next}`;
const expiresAt = () => Date.now() + 300_000;

const BENCHES = [
  { name: 'ping', call: () => client.ping() },
  {
    name: 'set',
    call: () =>
      client.set(`gatehouse:bench:${freshId()}`, '1', {
        expiration: { type: 'PX', value: 300_000 },
        condition: 'NX',
      }),
  },
  { name: 'record', call: () => store.record(freshId(), expiresAt()) },
  { name: 'memory', call: async () => memory.record(freshId(), expiresAt()) },
];

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs) => xs.reduce((sum, x) => sum + x, 0) / xs.length;

/** CALLS calls one after another, each timed alone: mean and median µs. */
async function latency(bench) {
  const times = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await bench.call();
    times[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return { mean: mean(times), median: median(times) };
}

/** Calls per second with CONCURRENCY in flight for THROUGHPUT_MS. */
async function throughput(bench) {
  const end = performance.now() + THROUGHPUT_MS;
  let calls = 0;
  const start = performance.now();
  const worker = async () => {
    while (performance.now() < end) {
      await bench.call();
      calls++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return calls / ((performance.now() - start) / 1000);
}

// Every benchmark must give the answer it is meant to give before it is timed.
if ((await client.ping()) !== 'PONG') throw new Error('PING did not answer PONG');
const probe = freshId();
if ((await store.record(probe, expiresAt())) !== true || (await store.record(probe, expiresAt())) !== false) {
  throw new Error('record() did not answer true then false');
}

async function setCalls() {
  const stats = String(await client.sendCommand(['INFO', 'commandstats']));
  return Number(/^cmdstat_set:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
}

const samples = {};
const ratios = {};
const push = (bag, key, value) => (bag[key] ??= []).push(value);
let setsPerRecord;
for (let round = 0; round <= ROUNDS; round++) {
  const order = BENCHES.map((_, i) => BENCHES[(i + round) % BENCHES.length]);
  const lat = {};
  const tput = {};
  for (const bench of order) {
    const setsBefore = bench.name === 'record' ? await setCalls() : 0;
    lat[bench.name] = await latency(bench);
    if (bench.name === 'record') setsPerRecord = ((await setCalls()) - setsBefore) / CALLS;
    tput[bench.name] = await throughput(bench);
  }
  if (round === 0) continue; // warm-up
  for (const { name } of BENCHES) {
    push(samples, `${name}.mean`, lat[name].mean);
    push(samples, `${name}.median`, lat[name].median);
    push(samples, `${name}.opsPerSec`, tput[name]);
    push(ratios, `${name}.mean/ping`, lat[name].mean / lat.ping.mean);
    push(ratios, `${name}.median/ping`, lat[name].median / lat.ping.median);
    push(ratios, `${name}.median/memory`, lat[name].median / lat.memory.median);
    push(ratios, `${name}.median/set`, lat[name].median / lat.set.median);
    push(ratios, `${name}.opsPerSec/ping`, tput[name] / tput.ping);
  }
  process.stderr.write(`round ${round}/${ROUNDS}${round === ROUNDS ? '\n' : '\r'}`);
}

client.destroy();
await server?.dispose();

const us = (n) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const x = (n) => `${n.toFixed(2)}x`;
const lines = [
  `node ${process.version}, node-redis ${nodeRedis}, redis-server ${redisVersion}` +
    `${server ? ' (throwaway, loopback)' : ` (${url})`}; ${ROUNDS} rounds x ${CALLS} timed calls per benchmark` +
    ` (one in flight), then ${THROUGHPUT_MS} ms with ${CONCURRENCY} in flight; medians over rounds, ratios paired per round`,
  '',
  '| benchmark | mean µs/call | median µs/call | median x ping | median x set | median x memory | calls/s (concurrent) | x ping |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
const summary = {};
for (const { name } of BENCHES) {
  const row = {
    meanUs: median(samples[`${name}.mean`]),
    medianUs: median(samples[`${name}.median`]),
    meanXPing: median(ratios[`${name}.mean/ping`]),
    medianXPing: median(ratios[`${name}.median/ping`]),
    medianXSet: median(ratios[`${name}.median/set`]),
    medianXMemory: median(ratios[`${name}.median/memory`]),
    opsPerSec: median(samples[`${name}.opsPerSec`]),
    opsPerSecXPing: median(ratios[`${name}.opsPerSec/ping`]),
  };
  summary[name] = row;
  lines.push(
    `| ${name} | ${us(row.meanUs)} | ${us(row.medianUs)} | ${x(row.medianXPing)} | ${x(row.medianXSet)} | ${x(row.medianXMemory)} | ` +
      `${Math.round(row.opsPerSec).toLocaleString('en-US')} | ${x(row.opsPerSecXPing)} |`,
  );
}
lines.push('');
lines.push(`SET commands executed by Redis per record(): ${setsPerRecord.toFixed(2)} (target: 1)`);
const target = summary.record.medianXPing;
lines.push(
  `record() / PING round trip: ${x(target)} median, ${x(summary.record.meanXPing)} mean ` +
    `(target ≈ 1.0: at most one loopback round trip per request); record() / the bare SET: ${x(summary.record.medianXSet)}`,
);
console.log(lines.join('\n'));

mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results/replay.json'),
  `${JSON.stringify(
    {
      node: process.version,
      redis: redisVersion,
      nodeRedis,
      date: new Date().toISOString(),
      rounds: ROUNDS,
      calls: CALLS,
      concurrency: CONCURRENCY,
      throughputMs: THROUGHPUT_MS,
      setsPerRecord,
      results: summary,
    },
    null,
    2,
  )}\n`,
);
