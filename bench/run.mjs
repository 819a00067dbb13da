#!/usr/bin/env node
/**
 * `./dev bench [core|issuer|http|all]`: run the benchmarks (default: core and issuer; `http` starts a
 * server process per sample and takes several minutes, so it runs only when named or with `all`).
 * Each benchmark compares against a baseline measured in the same run and prints ratios.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BENCHES = {
  core: { file: 'bench/core/verify.bench.mjs', about: '@gatehouse/core verify() vs crypto.verify and jose' },
  issuer: {
    file: 'packages/issuer/bench/issuer.bench.mjs',
    about: 'client-credentials tokens/s vs oidc-provider alone; Management API reads/s',
  },
  http: {
    file: 'bench/http/run.mjs',
    about: 'adapters vs bare frameworks, hand-written jose and peer libraries (autocannon)',
    setup: () => {
      if (existsSync(join(root, 'bench/http/node_modules'))) return;
      console.log('bench: installing bench/http dependencies (pnpm install --ignore-workspace)');
      spawnSync('pnpm', ['install', '--dir', 'bench/http', '--ignore-workspace', '--reporter=silent'], {
        cwd: root,
        stdio: 'inherit',
      });
    },
  },
};

const wanted = process.argv[2] ?? 'default';
const names = wanted === 'all' ? Object.keys(BENCHES) : wanted === 'default' ? ['core', 'issuer'] : [wanted];
let failed = false;
for (const name of names) {
  const bench = BENCHES[name];
  if (bench === undefined) {
    console.error(`bench: unknown benchmark "${name}" (core, issuer, http, all)`);
    process.exit(2);
  }
  console.log(`\n== ${name}: ${bench.about}`);
  bench.setup?.();
  const r = spawnSync(process.execPath, [join(root, bench.file)], { cwd: root, stdio: 'inherit' });
  failed ||= r.status !== 0;
}
process.exit(failed ? 1 : 0);
