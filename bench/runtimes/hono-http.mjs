#!/usr/bin/env node
/**
 * `./dev bench hono`: Hono with @gatehouse/hono against bare Hono and Hono's own `jwk` middleware, on
 * Node (@hono/node-server) and Bun — the method of bench/http (fresh server per sample pinned to core 0,
 * autocannon on core 1 with a warm-up, configurations rotating per round, ratios paired per round).
 * Needs bench/http installed (its autocannon and issuer). Env: BENCH_ROUNDS (3), BENCH_DURATION (10),
 * BENCH_WARMUP (3), BENCH_ALGS (ES256,RS256), BENCH_RUNTIMES (node,bun). Writes bench/results/hono-http.json.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AUDIENCE, SCOPE, startIssuer } from '../http/lib/issuer.mjs';
import { canPin, runLoad } from '../http/lib/process.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const { build } = await import(
  pathToFileURL(join(root, 'packages/adapter-conformance/node_modules/esbuild/lib/main.js')).href
);
const env = (name, fallback) => process.env[name] ?? fallback;
const ROUNDS = Number(env('BENCH_ROUNDS', 3));
const DURATION = Number(env('BENCH_DURATION', 10));
const WARMUP = Number(env('BENCH_WARMUP', 3));
const ALGS = env('BENCH_ALGS', 'ES256,RS256').split(',');
const RUNTIMES = env('BENCH_RUNTIMES', 'node,bun').split(',');
const CONFIGS = ['bare', 'gatehouse', 'gatehouse-cached', 'hono-jwk'];
const BUN = join(root, 'packages/adapter-conformance/node_modules/.bin/bun');

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-hono-bench-'));
const bundles = {};
for (const runtime of RUNTIMES) {
  bundles[runtime] = join(dir, `server-${runtime}.mjs`);
  await build({
    entryPoints: [join(here, 'hono-server.mjs')],
    bundle: true,
    format: 'esm',
    platform: runtime === 'node' ? 'node' : 'neutral',
    target: 'es2022',
    conditions: [runtime],
    mainFields: ['module', 'main'],
    // The workspace packages' builds (core's and hono's Node or web build), picked by the runtime's
    // export condition as an app's bundler would.
    nodePaths: [
      join(root, 'packages/adapter-conformance/node_modules'),
      join(root, 'packages/hono/node_modules'),
      join(root, 'packages/core/node_modules'),
    ],
    external: runtime === 'node' ? [] : ['@hono/node-server'],
    outfile: bundles[runtime],
    logLevel: 'warning',
  });
}

async function startServer(runtime, spec) {
  const exe = runtime === 'node' ? process.execPath : BUN;
  const [cmd, args] = canPin ? ['taskset', ['-c', '0', exe, bundles[runtime]]] : [exe, [bundles[runtime]]];
  // Its own process group, killed whole on stop: a Bun server left behind kept this script alive and
  // took CPU from the next measurements.
  const child = spawn(cmd, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BENCH_SERVER: JSON.stringify(spec) },
    detached: true,
  });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${runtime} server exited (${code})`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /^READY (\d+)$/.exec(line);
      if (m) resolve(Number(m[1]));
    });
  });
  return { child, url: `http://127.0.0.1:${port}/orders` };
}

async function stop(child) {
  const group = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is gone
    }
  };
  const exited = child.exitCode === null ? once(child, 'exit') : Promise.resolve();
  group('SIGTERM');
  const timer = setTimeout(() => group('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  group('SIGKILL'); // whatever it started
}

const issuer = await startIssuer();
const samples = [];
try {
  for (let round = 0; round < ROUNDS; round++)
    for (const runtime of RUNTIMES)
      for (const alg of ALGS)
        for (const config of CONFIGS) {
          const spec = {
            config,
            alg,
            issuer: issuer.issuer,
            audience: AUDIENCE,
            jwksUri: issuer.jwksUri,
            scope: SCOPE,
          };
          const { child, url } = await startServer(runtime, spec);
          try {
            const token = issuer.tokens[alg];
            const ok = await fetch(url, { headers: { authorization: `Bearer ${token.good}` } });
            if (ok.status !== 200)
              throw new Error(`${runtime} ${config} ${alg}: valid token got ${ok.status}`);
            if (config !== 'bare') {
              const bad = await fetch(url, { headers: { authorization: `Bearer ${token.tampered}` } });
              if (bad.status !== 401)
                throw new Error(`${runtime} ${config} ${alg}: tampered token got ${bad.status}`);
            }
            const { measured } = await runLoad(
              'load.mjs',
              {
                url,
                headers: { authorization: `Bearer ${token.good}` },
                connections: 10,
                warmup: WARMUP,
                duration: DURATION,
              },
              (WARMUP + DURATION + 30) * 1000,
            );
            samples.push({
              round,
              runtime,
              alg,
              config,
              rps: measured.rps,
              p99: measured.latencyP99,
              non2xx: measured.non2xx,
            });
            process.stderr.write(
              `round ${round + 1} ${runtime} ${alg} ${config}: ${Math.round(measured.rps)} req/s\n`,
            );
          } finally {
            await stop(child);
          }
        }
} finally {
  await issuer.close?.();
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const lines = [
  '| runtime | alg | config | req/s (median) | p99 ms | x bare Hono | x Hono jwk |',
  '| --- | --- | --- | ---: | ---: | ---: | ---: |',
];
const summary = [];
for (const runtime of RUNTIMES)
  for (const alg of ALGS)
    for (const config of CONFIGS) {
      const pick = (c) => samples.filter((s) => s.runtime === runtime && s.alg === alg && s.config === c);
      const own = pick(config);
      const ratio = (c) => median(own.map((s) => s.rps / pick(c).find((b) => b.round === s.round).rps));
      const row = {
        runtime,
        alg,
        config,
        rps: median(own.map((s) => s.rps)),
        p99: median(own.map((s) => s.p99)),
        xBare: ratio('bare'),
        xJwk: ratio('hono-jwk'),
      };
      summary.push(row);
      lines.push(
        `| ${runtime} | ${alg} | ${config} | ${Math.round(row.rps).toLocaleString('en')} | ${row.p99} | ${row.xBare.toFixed(2)}x | ${row.xJwk.toFixed(2)}x |`,
      );
    }
console.log(lines.join('\n'));
writeFileSync(
  join(root, 'bench/results/hono-http.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, duration: DURATION, warmup: WARMUP, pinned: canPin, summary, samples }, null, 2)}\n`,
);
