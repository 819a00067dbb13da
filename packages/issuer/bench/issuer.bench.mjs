#!/usr/bin/env node
/**
 * Issuer benchmark.
 *
 * 1. Client-credentials tokens per second: @gatehouse/issuer on SQLite vs oidc-provider alone with its
 *    in-memory adapter (same RS256 key size, same resource server, JWT access tokens), as a ratio
 *    paired per round. Each target runs in its own process (pinned to core 0 with taskset when
 *    available); this process generates the load (pinned to core 1) with BENCH_CONCURRENCY requests in
 *    flight. Both targets run for the whole round and the load alternates between them in
 *    BENCH_SLICES short slices (the first target rotating), so a drift of the machine's speed during
 *    the round weighs on both alike: each target's rate is its requests over its own measured time.
 * 2. Management API reads per second against the same issuer: GET /api/users (a page of 20 of 50
 *    users) and GET /api/users/{id}, with one cached M2M token.
 *
 * Run: pnpm --filter @gatehouse/issuer build && node packages/issuer/bench/issuer.bench.mjs
 * Env: BENCH_ROUNDS (5), BENCH_DURATION (6 s measured per target and round, in slices), BENCH_SLICES (6),
 * BENCH_WARMUP (1 s), BENCH_CONCURRENCY (8).
 * Prints a Markdown table and writes packages/issuer/bench/results/issuer.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, rotated } from './load.mjs';
import { startTarget, tokenRequest } from './target.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DURATION = Number(process.env.BENCH_DURATION ?? 6) * 1000;
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const pin = spawnSync('taskset', ['--version']).status === 0 && cpus().length >= 2;
// The load generator (this process, every thread) on core 1; the targets on core 0.
if (pin) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

/** Requests/s of `request` over `ms`. */
const rate = async (ms, request) => {
  const { done, seconds } = await load(ms, request, CONCURRENCY);
  return done / seconds;
};

/** Requests/s of each of `requests` (by name), loaded in turn over SLICES slices of DURATION / SLICES each. */
async function interleaved(requests, round) {
  const names = Object.keys(requests);
  const totals = Object.fromEntries(names.map((name) => [name, { done: 0, seconds: 0 }]));
  for (let slice = 0; slice < SLICES; slice++)
    for (const name of rotated(names, slice + round)) {
      const { done, seconds } = await load(DURATION / SLICES, requests[name], CONCURRENCY);
      totals[name].done += done;
      totals[name].seconds += seconds;
    }
  return Object.fromEntries(names.map((name) => [name, totals[name].done / totals[name].seconds]));
}

const apiRead = (target, path) => {
  const headers = { authorization: `Bearer ${target.adminToken}` };
  return async () => {
    const res = await fetch(`${target.url}/api${path}`, { headers });
    await res.arrayBuffer();
    return res.status === 200;
  };
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const rounds = [];
for (let round = 0; round < ROUNDS; round++) {
  const targets = {};
  try {
    for (const mode of ['gatehouse', 'baseline']) targets[mode] = await startTarget({ mode, pin });
    const requests = Object.fromEntries(
      Object.entries(targets).map(([mode, target]) => [mode, tokenRequest(target, { scope: 'read:orders' })]),
    );
    for (const request of Object.values(requests)) await rate(WARMUP, request);
    const result = await interleaved(requests, round);
    const gatehouse = targets.gatehouse;
    await rate(WARMUP, apiRead(gatehouse, '/users?pageSize=20'));
    result.managementList = await rate(DURATION / 2, apiRead(gatehouse, '/users?pageSize=20'));
    result.managementGet = await rate(DURATION / 2, apiRead(gatehouse, `/users/${gatehouse.userId}`));
    result.ratio = result.gatehouse / result.baseline;
    rounds.push(result);
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: ${JSON.stringify(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, Math.round(v * 100) / 100])))}\n`,
    );
  } finally {
    await Promise.all(Object.values(targets).map((target) => target.stop()));
  }
}

const summary = {
  node: process.version,
  cpus: cpus().length,
  pinned: pin,
  rounds: ROUNDS,
  durationMs: DURATION,
  slices: SLICES,
  concurrency: CONCURRENCY,
  clientCredentials: {
    gatehouseTokensPerSecond: median(rounds.map((r) => r.gatehouse)),
    oidcProviderMemoryTokensPerSecond: median(rounds.map((r) => r.baseline)),
    ratio: median(rounds.map((r) => r.ratio)),
  },
  management: {
    listUsersPerSecond: median(rounds.map((r) => r.managementList)),
    getUserPerSecond: median(rounds.map((r) => r.managementGet)),
  },
  rawRounds: rounds,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'issuer.json'), `${JSON.stringify(summary, null, 2)}\n`);
const f = (n) => n.toFixed(0);
process.stdout.write(`| Measurement | Median of ${ROUNDS} rounds |
|---|---|
| Client credentials, @gatehouse/issuer on SQLite | ${f(summary.clientCredentials.gatehouseTokensPerSecond)} tokens/s |
| Client credentials, oidc-provider + in-memory adapter | ${f(summary.clientCredentials.oidcProviderMemoryTokensPerSecond)} tokens/s |
| Ratio (paired per round) | ${summary.clientCredentials.ratio.toFixed(2)}x |
| Management API GET /api/users?pageSize=20 | ${f(summary.management.listUsersPerSecond)} req/s |
| Management API GET /api/users/{id} | ${f(summary.management.getUserPerSecond)} req/s |
`);
