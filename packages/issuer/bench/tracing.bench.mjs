#!/usr/bin/env node
/**
 * The cost of the issuer's traces at the token endpoint (client credentials, JWT access tokens, SQLite):
 * tokens per second of
 *
 *   off     this build, no SDK registered (the API's no-op provider: what every issuer runs without
 *           OpenTelemetry set up);
 *   sdk     this build with OpenTelemetry's SDK registered (AsyncLocalStorage context manager, batch
 *           processor, every span sampled, an exporter that drops the spans): a request records its
 *           SERVER span, the provider's phases and its statements;
 *   before  (with BENCH_BEFORE_DIST=<path to another build's dist/index.js>, e.g. main's) the issuer
 *           before the traces, no SDK.
 *
 * Each target runs in its own process (pinned to core 0 with taskset when available), this process
 * generates the load (core 1) with BENCH_CONCURRENCY requests in flight; the load alternates between
 * the targets in BENCH_SLICES slices per round (the first target rotating), and the ratios are paired
 * per round, so a drift of the machine's speed weighs on all alike.
 *
 * Run: pnpm --filter @gatehouse/issuer build && node packages/issuer/bench/tracing.bench.mjs
 * Env: BENCH_ROUNDS (5), BENCH_DURATION (6 s per target and round), BENCH_SLICES (6), BENCH_WARMUP (1 s),
 * BENCH_CONCURRENCY (8), BENCH_BEFORE_DIST. Prints a Markdown table and writes
 * packages/issuer/bench/results/tracing.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
const BEFORE = process.env.BENCH_BEFORE_DIST;
const pin = spawnSync('taskset', ['--version']).status === 0 && cpus().length >= 2;
if (pin) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 1/100 s on Linux). */
const TICK = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime (fields 14 and 15)
  } catch {
    return Number.NaN; // no /proc: CPU per token is not reported
  }
}

const TARGETS = {
  off: {},
  sdk: { BENCH_TRACING: 'sdk' },
  ...(BEFORE === undefined ? {} : { before: { BENCH_DIST: BEFORE } }),
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
    for (const [name, env] of Object.entries(TARGETS))
      targets[name] = await startTarget({ env, pin, label: 'target' });
    const names = Object.keys(targets);
    const requests = Object.fromEntries(
      names.map((name) => [name, tokenRequest(targets[name], { scope: 'read:orders' })]),
    );
    for (const name of names) await load(WARMUP, requests[name], CONCURRENCY);
    const totals = Object.fromEntries(names.map((name) => [name, { done: 0, seconds: 0, cpu: 0 }]));
    for (let slice = 0; slice < SLICES; slice++)
      for (const name of rotated(names, slice + round)) {
        const cpu = cpuSeconds(targets[name].pid);
        const { done, seconds } = await load(DURATION / SLICES, requests[name], CONCURRENCY);
        totals[name].cpu += cpuSeconds(targets[name].pid) - cpu;
        totals[name].done += done;
        totals[name].seconds += seconds;
      }
    const result = Object.fromEntries(names.map((name) => [name, totals[name].done / totals[name].seconds]));
    // The target's own CPU time per token: what the machine's other load changes least.
    for (const name of names) result[`${name}CpuUs`] = (totals[name].cpu / totals[name].done) * 1e6;
    result.sdkOverOff = result.sdk / result.off;
    if (result.before !== undefined) result.offOverBefore = result.off / result.before;
    rounds.push(result);
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: ${JSON.stringify(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, Math.round(v * 1000) / 1000])))}\n`,
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
  tokensPerSecond: Object.fromEntries(
    Object.keys(TARGETS).map((name) => [name, median(rounds.map((r) => r[name]))]),
  ),
  cpuMicrosecondsPerToken: Object.fromEntries(
    Object.keys(TARGETS).map((name) => [name, median(rounds.map((r) => r[`${name}CpuUs`]))]),
  ),
  // Paired per round: what the SDK adds to a token's CPU, and what the traces add with no SDK.
  cpuDifferenceMicroseconds: {
    sdkMinusOff: median(rounds.map((r) => r.sdkCpuUs - r.offCpuUs)),
    ...(BEFORE === undefined
      ? {}
      : { offMinusBefore: median(rounds.map((r) => r.offCpuUs - r.beforeCpuUs)) }),
  },
  sdkOverOff: median(rounds.map((r) => r.sdkOverOff)),
  ...(BEFORE === undefined ? {} : { offOverBefore: median(rounds.map((r) => r.offOverBefore)) }),
  rawRounds: rounds,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'tracing.json'), `${JSON.stringify(summary, null, 2)}\n`);
const f = (n) => n.toFixed(0);
const t = summary.tokensPerSecond;
const c = summary.cpuMicrosecondsPerToken;
process.stdout.write(`| Client credentials, SQLite (median of ${ROUNDS} rounds) | tokens/s | target CPU per token |
|---|---|---|
${BEFORE === undefined ? '' : `| before the traces (no SDK) | ${f(t.before)} | ${f(c.before)} µs |\n`}| traces, no SDK registered | ${f(t.off)} | ${f(c.off)} µs |
| traces, SDK registered (every span sampled) | ${f(t.sdk)} | ${f(c.sdk)} µs |
| SDK / no SDK (paired per round) | ${summary.sdkOverOff.toFixed(3)}x | +${f(summary.cpuDifferenceMicroseconds.sdkMinusOff)} µs |
${BEFORE === undefined ? '' : `| no SDK / before (paired per round) | ${summary.offOverBefore.toFixed(3)}x | ${f(summary.cpuDifferenceMicroseconds.offMinusBefore)} µs |\n`}`);
