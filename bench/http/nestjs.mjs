#!/usr/bin/env node
/**
 * `./dev bench nestjs`: NestJS 12 with the `@gatehouse/nestjs` guard against bare Nest and a hand-written
 * jose guard, on Nest's Express and Fastify platforms (lib/nest.mjs: bare; nest-noop, a global guard that
 * lets everything through, the ceiling for any guard; jose; gatehouse with the result cache off,
 * gatehouse-cached with it on), by the interleaved method (lib/interleave.mjs): per platform and
 * algorithm, the servers run at once (pinned to core 0) and one autocannon process (core 1)
 * loads them in short slices, rotating; ratios are paired per round of slices.
 *
 * Run: node bench/http/nestjs.mjs   (after `pnpm build` and installing bench/http, see README.md)
 * Env: BENCH_ROUNDS (10 rounds of slices), BENCH_DURATION (2 s per slice), BENCH_WARMUP (3 s per
 *      configuration), BENCH_CONNECTIONS (10), BENCH_FRAMEWORKS (nestjs-express,nestjs-fastify),
 *      BENCH_ALGS (ES256,RS256), BENCH_CONFIGS (all; the baselines bare, nest-noop and jose always run),
 *      BENCH_RESULT (http-nestjs).
 * Writes bench/results/<BENCH_RESULT>.json and .md.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missingBuilds, versionOf, warnStaleBuilds } from './lib/builds.mjs';
import {
  badResponses,
  formatRatio,
  groupSeconds,
  measureGroup,
  NODE_SERVER_FLAGS,
  pairedSummary,
  sliceSettings,
  startServer,
} from './lib/interleave.mjs';
import { ALGORITHMS, startIssuer } from './lib/issuer.mjs';
import { CONFIGS } from './lib/nest.mjs';
import { canPin } from './lib/process.mjs';
import { TARGETS } from './lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const FRAMEWORKS = ['nestjs-express', 'nestjs-fastify'];
const BASELINES = ['bare', 'nest-noop', 'jose'];
const ALL = ['bare', 'nest-noop', ...Object.keys(CONFIGS).filter((c) => c !== 'bare')];
/** Configurations that let a request without a valid token through. */
const UNGUARDED = ['bare', 'nest-noop'];
/** Issue #15's target: the guard with a cached token, at least this much of bare Nest. */
const TARGET_CACHED_VS_BARE = 0.85;

const list = (value, all) => (value ? value.split(',').map((s) => s.trim()) : all).filter(Boolean);
const resultName = process.env.BENCH_RESULT ?? 'http-nestjs';
const wanted = list(process.env.BENCH_CONFIGS, ALL);
const settings = {
  ...sliceSettings({ rounds: 10, duration: 2, warmup: 3, connections: 10 }),
  frameworks: list(process.env.BENCH_FRAMEWORKS, FRAMEWORKS),
  algorithms: list(process.env.BENCH_ALGS, ALGORITHMS),
  configs: ALL.filter((c) => BASELINES.includes(c) || wanted.includes(c)),
  pinned: canPin,
};
settings.smoke = settings.rounds < 5;

const missing = missingBuilds(['core', 'nestjs']);
for (const name of settings.frameworks)
  if (!FRAMEWORKS.includes(name)) missing.push(`BENCH_FRAMEWORKS: unknown framework ${name}`);
for (const alg of settings.algorithms)
  if (!ALGORITHMS.includes(alg)) missing.push(`BENCH_ALGS: unknown algorithm ${alg}`);
if (!/^[\w-]+$/.test(resultName)) missing.push('BENCH_RESULT: letters, digits, - and _ only');
if (missing.length > 0) {
  console.error(`bench/http/nestjs: cannot run yet:\n  ${missing.join('\n  ')}`);
  process.exit(2);
}
warnStaleBuilds(['core', 'nestjs'], 'bench/http/nestjs');

const versions = { autocannon: versionOf('autocannon'), jose: versionOf('jose') };
for (const name of ['@nestjs/core', '@nestjs/platform-express', '@nestjs/platform-fastify'])
  versions[name] = versionOf(name, join(root, 'packages/nestjs'));
for (const name of ['core', 'nestjs'])
  versions[`@gatehouse/${name}`] = JSON.parse(
    readFileSync(join(root, `packages/${name}/package.json`), 'utf8'),
  ).version;

const groupCount = settings.frameworks.length * settings.algorithms.length;
console.log(
  `bench/http/nestjs: ${groupCount} group(s) of ${settings.configs.length} servers, ${settings.rounds} round(s) of ` +
    `${settings.duration} s slices after ${settings.warmup} s warm-up each ` +
    `(≈ ${Math.ceil((groupCount * groupSeconds(settings.configs.length, settings)) / 60)} min), ` +
    (canPin ? 'servers on core 0, autocannon on core 1' : 'NOT pinned (taskset missing or 1 core)'),
);

const issuer = await startIssuer();
const groups = [];
try {
  for (const framework of settings.frameworks)
    for (const alg of settings.algorithms) {
      const spec = (config) => issuer.spec({ framework, config, alg });
      const measured = await measureGroup({
        label: `${framework} ${alg}`,
        configs: settings.configs.map((config) => ({ config, guarded: !UNGUARDED.includes(config) })),
        start: (config) =>
          startServer(process.execPath, [join(here, 'server.mjs')], spec(config), { NODE_ENV: 'production' }),
        tokens: issuer.tokens[alg],
        settings,
      });
      groups.push({
        framework,
        alg,
        measured,
        summary: pairedSummary(measured, settings.configs, BASELINES),
      });
    }
} finally {
  await issuer.close();
}

// --- targets and report ---------------------------------------------------------------------------
const targets = [];
const check = (framework, alg, target, value, pass) => targets.push({ framework, alg, target, value, pass });
for (const { framework, alg, measured, summary } of groups) {
  const cached = summary['gatehouse-cached']?.ratios.bare.median;
  if (cached !== undefined)
    check(
      framework,
      alg,
      `cache on (repeated token) ≥ ${TARGET_CACHED_VS_BARE}x bare`,
      cached,
      cached >= TARGET_CACHED_VS_BARE,
    );
  const uncached = summary.gatehouse?.ratios.jose.median;
  if (uncached !== undefined)
    check(
      framework,
      alg,
      `cache off ≥ ${TARGETS.uncachedVsJose}x hand-written jose`,
      uncached,
      uncached >= TARGETS.uncachedVsJose,
    );
  const bad = badResponses([...measured.warmups, ...measured.slices]);
  check(framework, alg, '0 non-2xx responses, errors or timeouts', bad, bad === 0);
}
const shown = (v) => (Number.isInteger(v) ? String(v) : `${v.toFixed(2)}x`);

const date = new Date().toISOString();
const md = [
  '# NestJS HTTP benchmark',
  '',
  `Generated by \`node bench/http/nestjs.mjs\` on ${date}: Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores).`,
  `Interleaved: per platform and algorithm, every configuration's server runs at once ${settings.pinned ? '(pinned to core 0) ' : ''}and one ` +
    `autocannon process ${settings.pinned ? '(core 1) ' : ''}with ${settings.connections} connections loads them in turn: ` +
    `${settings.warmup} s warm-up each, then ${settings.rounds} round(s) of one ${settings.duration} s slice per configuration, ` +
    'the order rotating each round. A rate is requests completed / measured time of a slice; ratios are paired per round ' +
    'and given as the median of rounds (min–max). Every request carries the same `Authorization: Bearer` header; the route answers `{ ok: true, sub }`. ' +
    `Every server runs with \`${NODE_SERVER_FLAGS.join(' ')}\` (the same young generation for all; see lib/interleave.mjs).`,
  '',
];
if (settings.smoke)
  md.push('> **Smoke run**: too short to be meaningful; it only shows the harness works.', '');
md.push(
  '## Targets',
  '',
  '| Platform | Alg | Target | Measured | Result |',
  '| --- | --- | --- | --- | --- |',
);
for (const t of targets)
  md.push(`| ${t.framework} | ${t.alg} | ${t.target} | ${shown(t.value)} | ${t.pass ? 'PASS' : 'MISS'} |`);
for (const framework of settings.frameworks) {
  md.push(
    '',
    `## ${framework}`,
    '',
    '| Configuration | Alg | req/s (median) | p50 ms | p99 ms | × bare | × nest-noop | × jose | non-2xx |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const { alg, summary } of groups.filter((g) => g.framework === framework))
    for (const [config, r] of Object.entries(summary))
      md.push(
        `| ${config} | ${alg} | ${Math.round(r.rps.median)} | ${r.latencyP50} | ${r.latencyP99} | ` +
          `${formatRatio(r.ratios.bare)} | ${formatRatio(r.ratios['nest-noop'])} | ${formatRatio(r.ratios.jose)} | ${r.badResponses} |`,
      );
}
md.push('', '## Versions', '', ...Object.entries(versions).map(([name, v]) => `- ${name} ${v}`), '');

const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const result = {
  node: process.version,
  cpu: `${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores)`,
  date,
  method: 'interleaved: all servers of a platform and algorithm at once, one load process, rotating slices',
  nodeServerFlags: NODE_SERVER_FLAGS,
  settings,
  versions,
  summary: Object.fromEntries(
    settings.frameworks.map((framework) => [
      framework,
      Object.fromEntries(groups.filter((g) => g.framework === framework).map((g) => [g.alg, g.summary])),
    ]),
  ),
  targets,
  samples: groups.flatMap(({ framework, alg, measured }) =>
    measured.slices.map((s) => ({ framework, alg, ...s })),
  ),
  warmups: groups.flatMap(({ framework, alg, measured }) =>
    measured.warmups.map((s) => ({ framework, alg, ...s })),
  ),
};
writeFileSync(join(resultsDir, `${resultName}.json`), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(join(resultsDir, `${resultName}.md`), md.join('\n'));

console.log('\ntargets (ratios: median of rounds):');
for (const t of targets)
  console.log(
    `  ${t.pass ? 'PASS' : 'MISS'}  ${t.framework.padEnd(15)} ${t.alg}  ${t.target}: ${shown(t.value)}`,
  );
if (settings.smoke) console.log('bench/http/nestjs: short run: the figures only show that the harness works');
console.log(`wrote bench/results/${resultName}.json and bench/results/${resultName}.md`);
if (targets.some((t) => t.target.startsWith('0 ') && !t.pass)) process.exitCode = 1;
