#!/usr/bin/env node
/**
 * `./dev bench hono`: Hono with @gatehouse/hono against bare Hono, two no-op middlewares and Hono's own
 * `jwk` middleware, on Node (@hono/node-server) and Bun, by the interleaved method of bench/http
 * (lib/interleave.mjs): per runtime and algorithm, every configuration's server runs at once (pinned to
 * core 0) and one autocannon process (core 1) loads them in short slices, rotating; ratios are paired
 * per round of slices. Configurations: hono-app.mjs. Needs bench/http installed (its autocannon and
 * issuer). Env: BENCH_ROUNDS (10 rounds of slices), BENCH_DURATION (2 s per slice), BENCH_WARMUP (3 s
 * per configuration), BENCH_CONNECTIONS (10), BENCH_ALGS (ES256,RS256), BENCH_RUNTIMES (node,bun),
 * BENCH_CONFIGS (all; bare always runs). Writes bench/results/hono-http.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  badResponses,
  formatRatio,
  groupSeconds,
  measureGroup,
  NODE_SERVER_FLAGS,
  pairedSummary,
  sliceSettings,
  startServer,
} from '../http/lib/interleave.mjs';
import { startIssuer } from '../http/lib/issuer.mjs';
import { canPin } from '../http/lib/process.mjs';
import { bundleFor } from './bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const env = (name, fallback) => process.env[name] ?? fallback;
const settings = sliceSettings({ rounds: 10, duration: 2, warmup: 3, connections: 10 });
const ALGS = env('BENCH_ALGS', 'ES256,RS256').split(',');
const RUNTIMES = env('BENCH_RUNTIMES', 'node,bun').split(',');
/** Every configuration of hono-app.mjs; the first three are the baselines of the ratios. */
const ALL = ['bare', 'hono-noop', 'hono-jwk', 'gatehouse', 'gatehouse-cached', 'gatehouse-cached-one'];
const BASELINES = ['bare', 'hono-noop', 'hono-jwk'];
const wanted = env('BENCH_CONFIGS', '').split(',').filter(Boolean);
const CONFIGS = ALL.filter((c) => c === 'bare' || wanted.length === 0 || wanted.includes(c));
/** Issue #15's target: Hono with @gatehouse/hono, cached token, at least this much of bare Hono. */
const TARGET_CACHED_VS_BARE = 0.85;
const BUN = join(root, 'packages/adapter-conformance/node_modules/.bin/bun');

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-hono-bench-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true })); // Ctrl-C included
const bundles = {};
for (const runtime of RUNTIMES) {
  bundles[runtime] = join(dir, `server-${runtime}.mjs`);
  await bundleFor(runtime, join(here, 'hono-server.mjs'), bundles[runtime]);
}

const exe = (runtime) => (runtime === 'node' ? process.execPath : BUN);
const versionOf = (runtime) =>
  runtime === 'node' ? process.version : spawnSync(BUN, ['--version'], { encoding: 'utf8' }).stdout.trim();

console.log(
  `hono-http: ${RUNTIMES.length * ALGS.length} group(s) of ${CONFIGS.length} servers, ${settings.rounds} round(s) of ` +
    `${settings.duration} s slices after ${settings.warmup} s warm-up each ` +
    `(≈ ${Math.ceil((RUNTIMES.length * ALGS.length * groupSeconds(CONFIGS.length, settings)) / 60)} min), ` +
    (canPin ? 'servers on core 0, autocannon on core 1' : 'NOT pinned (taskset missing or 1 core)'),
);

const issuer = await startIssuer();
const groups = [];
try {
  for (const runtime of RUNTIMES)
    for (const alg of ALGS) {
      const spec = (config) => issuer.spec({ config, alg });
      const measured = await measureGroup({
        label: `${runtime} ${alg}`,
        configs: CONFIGS.map((config) => ({ config, guarded: config !== 'bare' && config !== 'hono-noop' })),
        start: (config) => startServer(exe(runtime), [bundles[runtime]], spec(config)),
        tokens: issuer.tokens[alg],
        settings,
      });
      groups.push({ runtime, alg, measured, summary: pairedSummary(measured, CONFIGS, BASELINES) });
    }
} finally {
  await issuer.close?.();
  rmSync(dir, { recursive: true, force: true });
}

const lines = [
  '| runtime | alg | config | req/s (median) | p99 ms | x bare | x hono-noop | x Hono jwk |',
  '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |',
];
const summary = [];
const targets = [];
for (const { runtime, alg, summary: group } of groups)
  for (const config of CONFIGS) {
    const r = group[config];
    const row = {
      runtime,
      alg,
      config,
      rps: r.rps.median,
      p99: r.latencyP99,
      xBare: r.ratios.bare?.median ?? null,
      xNoop: r.ratios['hono-noop']?.median ?? null,
      xJwk: r.ratios['hono-jwk']?.median ?? null,
      ratios: r.ratios,
      badResponses: r.badResponses,
    };
    summary.push(row);
    lines.push(
      `| ${runtime} | ${alg} | ${config} | ${Math.round(row.rps).toLocaleString('en')} | ${row.p99} | ` +
        `${formatRatio(r.ratios.bare)} | ${formatRatio(r.ratios['hono-noop'])} | ${formatRatio(r.ratios['hono-jwk'])} |`,
    );
    if (config.startsWith('gatehouse-cached'))
      targets.push({
        runtime,
        alg,
        target: `${config} ≥ ${TARGET_CACHED_VS_BARE}x bare Hono`,
        value: row.xBare,
        pass: row.xBare !== null && row.xBare >= TARGET_CACHED_VS_BARE,
      });
  }
for (const { runtime, alg, measured } of groups) {
  const bad = badResponses([...measured.warmups, ...measured.slices]);
  targets.push({
    runtime,
    alg,
    target: '0 non-2xx responses, errors or timeouts',
    value: bad,
    pass: bad === 0,
  });
}
console.log(`\n${lines.join('\n')}\n\ntargets (ratios: median of rounds, min–max in brackets above):`);
for (const t of targets)
  console.log(
    `  ${t.pass ? 'PASS' : 'MISS'}  ${t.runtime.padEnd(5)} ${t.alg}  ${t.target}: ${Number.isInteger(t.value) ? t.value : t.value?.toFixed(2)}`,
  );
if (settings.rounds < 5) console.log('hono-http: short run: the figures only show that the harness works');
writeFileSync(
  join(root, 'bench/results/hono-http.json'),
  `${JSON.stringify(
    {
      node: process.version,
      runtimes: Object.fromEntries(RUNTIMES.map((r) => [r, versionOf(r)])),
      date: new Date().toISOString(),
      method:
        'interleaved: all servers of a runtime and algorithm at once, one load process, rotating slices',
      nodeServerFlags: NODE_SERVER_FLAGS,
      rounds: settings.rounds,
      duration: settings.duration,
      warmup: settings.warmup,
      connections: settings.connections,
      pinned: canPin,
      summary,
      targets,
      samples: groups.flatMap(({ runtime, alg, measured }) =>
        measured.slices.map((s) => ({ runtime, alg, ...s })),
      ),
      warmups: groups.flatMap(({ runtime, alg, measured }) =>
        measured.warmups.map((s) => ({ runtime, alg, ...s })),
      ),
    },
    null,
    2,
  )}\n`,
);
console.log('wrote bench/results/hono-http.json');
if (targets.some((t) => t.target.startsWith('0 ') && !t.pass)) process.exitCode = 1;
