#!/usr/bin/env node
/**
 * `./dev bench hono-node`: what @gatehouse/hono adds per request on Node (@hono/node-server), in
 * process: bare Hono against Hono with requireAuth + requireScope and a cached token, both behind
 * node-server's request listener, fed real `IncomingMessage`s without socket I/O (hono-node-micro-main.mjs).
 * A quiet way to see the middleware's plumbing cost on a busy machine, next to the HTTP benchmark
 * (hono-http.mjs), whose ratios include node:http parsing and the socket. `hono-noop` (two pass-through
 * middlewares) shows what Hono's middleware chain costs by itself; `gatehouse-cached-one` is the one
 * middleware form (`auth.requireScope()`). With BENCH_RUNTIMES including `bun`, the
 * same apps also run on Bun through `app.fetch()` with WHATWG `Request`s (hono-fetch-micro-main.mjs), as
 * `Bun.serve` calls them, with core's WebCrypto build. Env: BENCH_ROUNDS (7), BENCH_ITERATIONS (20000),
 * BENCH_ALGS (ES256,RS256), BENCH_RUNTIMES (node,bun). Prints CPU ns/request (median of rounds) and the
 * added cost.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startIssuer } from '../http/lib/issuer.mjs';
import { bundleFor } from './bundle.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const env = (name, fallback) => process.env[name] ?? fallback;
const ROUNDS = Number(env('BENCH_ROUNDS', 7));
const ITERATIONS = Number(env('BENCH_ITERATIONS', 20000));
const ALGS = env('BENCH_ALGS', 'ES256,RS256').split(',');
const RUNTIMES = env('BENCH_RUNTIMES', 'node,bun').split(',');
const CONFIGS = ['bare', 'hono-noop', 'gatehouse-cached', 'gatehouse-cached-one'];
const BUN = join(root, 'packages/adapter-conformance/node_modules/.bin/bun');

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-hono-micro-'));
const issuer = await startIssuer();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const bundles = {};
  for (const runtime of RUNTIMES) {
    bundles[runtime] = join(dir, `main-${runtime}.mjs`);
    await bundleFor(
      runtime,
      join(here, runtime === 'node' ? 'hono-node-micro-main.mjs' : 'hono-fetch-micro-main.mjs'),
      bundles[runtime],
    );
  }
  const lines = [
    '| runtime | alg | bare | 2 no-op middlewares | requireAuth + requireScope, cached | added over bare | added over no-op | auth.requireScope() (one middleware), cached | added over bare |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const runtime of RUNTIMES)
    for (const alg of ALGS) {
      const specs = CONFIGS.map((config) => issuer.spec({ config, alg }));
      const env = {
        ...process.env,
        BENCH_MICRO: JSON.stringify({
          specs,
          token: issuer.tokens[alg].good,
          rounds: ROUNDS,
          iterations: ITERATIONS,
        }),
      };
      // A child process (not spawnSync: the issuer answering its key fetch runs in this one).
      const { stdout } = await promisify(execFile)(
        runtime === 'node' ? process.execPath : BUN,
        [bundles[runtime]],
        {
          env,
        },
      );
      const samples = JSON.parse(stdout.trim().split('\n').pop());
      const [bare, noop, cached, one] = CONFIGS.map((config) => median(samples[config]));
      const ns = (x) => `${Math.round(x).toLocaleString('en')} ns`;
      lines.push(
        `| ${runtime} | ${alg} | ${ns(bare)} | ${ns(noop)} | ${ns(cached)} | ${ns(cached - bare)} | ${ns(cached - noop)} | ${ns(one)} | ${ns(one - bare)} |`,
      );
    }
  console.log(lines.join('\n'));
} finally {
  await issuer.close();
  rmSync(dir, { recursive: true, force: true });
}
