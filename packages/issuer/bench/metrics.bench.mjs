#!/usr/bin/env node
/**
 * The cost of the issuer's metrics: client-credentials tokens per second of @gatehouse/issuer on SQLite
 * with metrics off (`telemetry.metrics: false`: no hook at all), on without an exporter (the default:
 * counts kept, the global no-op provider), and on with the Prometheus endpoint (own port) scraped every
 * BENCH_SCRAPE seconds during the load, in the same run. Each target runs in its own process (pinned
 * to core 0 with taskset when available; this process, the load, on core 1); the load visits the targets
 * in BENCH_SLICES interleaved slices per round (the first rotating), so a drift of the machine weighs on
 * all alike. Ratios are paired per round against `off`; the target is ≥ 0.95×. Beside the throughput,
 * the CPU time each target process spent per token (utime + stime from /proc, Linux): on a machine
 * loaded by other work, the throughput of a slice swings with what else ran on the core, while the CPU
 * a request costs its process does much less.
 *
 * Run: pnpm --filter @gatehouse/issuer build && node packages/issuer/bench/metrics.bench.mjs (or ./dev bench issuer-metrics)
 * Env: BENCH_ROUNDS (5), BENCH_DURATION (6 s per target and round), BENCH_SLICES (6), BENCH_WARMUP (2 s),
 * BENCH_CONCURRENCY (8), BENCH_SCRAPE (5 s).
 * Prints a Markdown table and writes packages/issuer/bench/results/metrics.json.
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
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2) * 1000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SCRAPE = Number(process.env.BENCH_SCRAPE ?? 5) * 1000;
const pin = spawnSync('taskset', ['--version']).status === 0 && cpus().length >= 2;
if (pin) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const TARGETS = {
  off: { metrics: false },
  default: {},
  prometheus: { prometheus: 'own-port', prometheusPort: 0 },
};

/** CPU seconds (user + system) process `pid` has used so far (Linux /proc; clock ticks of 10 ms). */
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const names = Object.keys(TARGETS);
const rounds = [];
let scrapes = 0;
let lastPage = '';
for (let round = 0; round < ROUNDS; round++) {
  const targets = {};
  let scraper;
  try {
    for (const name of names)
      targets[name] = await startTarget({
        env: { BENCH_TELEMETRY: JSON.stringify(TARGETS[name]) },
        pin,
        label: name,
      });
    const requests = Object.fromEntries(names.map((name) => [name, tokenRequest(targets[name])]));
    for (const name of names) await load(WARMUP, requests[name], CONCURRENCY);
    const metricsUrl = `http://127.0.0.1:${targets.prometheus.metricsPort}/metrics`;
    scraper = setInterval(async () => {
      const res = await fetch(metricsUrl);
      lastPage = await res.text();
      scrapes++;
    }, SCRAPE);
    const totals = Object.fromEntries(names.map((name) => [name, { done: 0, seconds: 0, cpu: 0 }]));
    for (let slice = 0; slice < SLICES; slice++)
      for (const name of rotated(names, slice + round)) {
        const before = cpuOf(targets[name].pid);
        const { done, seconds } = await load(DURATION / SLICES, requests[name], CONCURRENCY);
        totals[name].cpu += cpuOf(targets[name].pid) - before;
        totals[name].done += done;
        totals[name].seconds += seconds;
      }
    const result = Object.fromEntries(names.map((name) => [name, totals[name].done / totals[name].seconds]));
    for (const name of names) result[`${name}CpuUs`] = (totals[name].cpu / totals[name].done) * 1e6;
    result.defaultRatio = result.default / result.off;
    result.prometheusRatio = result.prometheus / result.off;
    // Tokens per CPU second, relative to off (≥ 1: cheaper than off).
    result.defaultCpuRatio = result.offCpuUs / result.defaultCpuUs;
    result.prometheusCpuRatio = result.offCpuUs / result.prometheusCpuUs;
    rounds.push(result);
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: ${JSON.stringify(Object.fromEntries(Object.entries(result).map(([k, v]) => [k, Math.round(v * 100) / 100])))}\n`,
    );
  } finally {
    clearInterval(scraper);
    await Promise.all(Object.values(targets).map((target) => target.stop()));
  }
}
if (!/gatehouse_issuer_tokens_issued_total\{/.test(lastPage))
  throw new Error('the scrape did not show the token count');

const summary = {
  node: process.version,
  cpus: cpus().length,
  pinned: pin,
  rounds: ROUNDS,
  durationMs: DURATION,
  slices: SLICES,
  concurrency: CONCURRENCY,
  scrapeIntervalMs: SCRAPE,
  scrapes,
  tokensPerSecond: Object.fromEntries(names.map((name) => [name, median(rounds.map((r) => r[name]))])),
  ratio: {
    default: median(rounds.map((r) => r.defaultRatio)),
    prometheus: median(rounds.map((r) => r.prometheusRatio)),
  },
  cpuMicrosecondsPerToken: Object.fromEntries(
    names.map((name) => [name, median(rounds.map((r) => r[`${name}CpuUs`]))]),
  ),
  cpuRatio: {
    default: median(rounds.map((r) => r.defaultCpuRatio)),
    prometheus: median(rounds.map((r) => r.prometheusCpuRatio)),
  },
  rawRounds: rounds,
};
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(join(here, 'results', 'metrics.json'), `${JSON.stringify(summary, null, 2)}\n`);
const f = (n) => Math.round(n).toLocaleString('en-US');
const c = (name) => `${Math.round(summary.cpuMicrosecondsPerToken[name])} µs`;
process.stdout.write(`| Client credentials, @gatehouse/issuer on SQLite (medians of ${ROUNDS} rounds) | throughput | vs off | CPU per token | tokens per CPU-s vs off |
|---|---|---|---|---|
| metrics off (\`telemetry.metrics: false\`) | ${f(summary.tokensPerSecond.off)} tokens/s | 1.00× | ${c('off')} | 1.00× |
| metrics on, no exporter (default) | ${f(summary.tokensPerSecond.default)} tokens/s | ${summary.ratio.default.toFixed(2)}× | ${c('default')} | ${summary.cpuRatio.default.toFixed(2)}× |
| metrics on, Prometheus scraped every ${SCRAPE / 1000} s | ${f(summary.tokensPerSecond.prometheus)} tokens/s | ${summary.ratio.prometheus.toFixed(2)}× | ${c('prometheus')} | ${summary.cpuRatio.prometheus.toFixed(2)}× |
`);
