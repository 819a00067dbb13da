#!/usr/bin/env node
/**
 * What OpenTelemetry costs a verify() (issue #30), in one process, interleaved round-robin, RS256 (the
 * cheapest signature check, so the smallest noise on the uncached rows):
 *
 *   baseline    core built from BENCH_BASELINE_REF (default: the commit before src/telemetry/ existed),
 *               where @opentelemetry/api cannot be found
 *   absent      core built from this tree, where @opentelemetry/api cannot be found
 *   off         this tree with @opentelemetry/api installed, `telemetry: false`
 *   noop        this tree with @opentelemetry/api installed and no SDK registered (the defaults)
 *   sdk-span    `off`, plus one span of the SDK started and ended around each call by the benchmark: what
 *               the SDK itself costs (IDs, clock, processor), whoever creates the span
 *   spans       this tree, spans and metrics on: the SDK's TracerProvider (AlwaysOn sampler, a
 *               BatchSpanProcessor with an exporter that discards) and MeterProvider
 *   sampled-out the same with an AlwaysOff sampler: what the requests of a trace sampling drops cost
 *   metrics     the same with `spans: false`: the metrics alone, no span started
 *
 * each with the result cache on (the same token repeated: "cached") and off ("uncached"). Both builds
 * are bundled here by esbuild with the same settings from their sources, into a temporary directory
 * that holds only core's own dependencies. Reports µs per call and, paired per round (medians), the
 * differences the targets are about: absent − baseline (≤ 0.1 µs), spans − off (≤ 1.5 µs cached,
 * ≤ 3 µs uncached); spans − sdk-span is Gatehouse's own share. Rates are per second of this process's
 * CPU time (BENCH_CLOCK=wall: elapsed). BENCH_ROUNDS / BENCH_SAMPLE_MS change the effort; pinned to one
 * CPU with taskset when present (BENCH_CPU picks it). Writes bench/results/core-telemetry.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const core = join(root, 'packages/core');
if (!process.env.GH_BENCH_PINNED && spawnSync('taskset', ['-c', '0', 'true']).status === 0) {
  const r = spawnSync(
    'taskset',
    ['-c', process.env.BENCH_CPU ?? '0', process.execPath, ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, GH_BENCH_PINNED: '1' } },
  );
  process.exit(r.status ?? 1);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 300);
const CPU_CLOCK = process.env.BENCH_CLOCK !== 'wall';
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
const coreRequire = createRequire(join(core, 'package.json'));
const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsup'))('esbuild');

// --- The two builds, in a directory where only core's own dependencies can be found.
const baseRef =
  process.env.BENCH_BASELINE_REF ??
  `${git('log', '--diff-filter=A', '--format=%H', '--', 'packages/core/src/telemetry/telemetry.ts').split('\n').pop()}^`;
const baseCommit = git('rev-parse', '--short', baseRef);
const work = mkdtempSync(join(tmpdir(), 'gatehouse-telemetry-bench-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const link = (dir, name) => {
  mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true });
  symlinkSync(realpathSync(join(core, 'node_modules', name)), join(dir, 'node_modules', name));
};
const absentDir = join(work, 'absent');
const presentDir = join(work, 'present');
for (const dir of [absentDir, presentDir]) {
  mkdirSync(dir, { recursive: true });
  link(dir, 'lru-cache');
  link(dir, '@noble/hashes');
}
link(presentDir, '@opentelemetry/api');
const baseSrc = join(work, 'base');
mkdirSync(baseSrc);
execFileSync('sh', ['-c', `git archive ${baseRef} packages/core/src | tar -x -C "${baseSrc}"`], {
  cwd: root,
});
const bundle = (entry, outfile) =>
  esbuild.buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    logLevel: 'error',
  });
bundle(join(baseSrc, 'packages/core/src/node.ts'), join(absentDir, 'baseline.mjs'));
bundle(join(core, 'src/node.ts'), join(absentDir, 'current.mjs'));
bundle(join(core, 'src/node.ts'), join(presentDir, 'current.mjs'));
const load = (file) => import(pathToFileURL(file).href);
const baseline = await load(join(absentDir, 'baseline.mjs'));
const absent = await load(join(absentDir, 'current.mjs'));
const present = await load(join(presentDir, 'current.mjs'));
let apiFoundInAbsentDir = true;
try {
  createRequire(join(absentDir, 'current.mjs')).resolve('@opentelemetry/api');
} catch {
  apiFoundInAbsentDir = false;
}
if (apiFoundInAbsentDir) throw new Error('@opentelemetry/api must not be found from the "absent" build');

// --- The SDK, as an application would set it up (no global registration: nothing else sees it).
const { TracerProvider, BatchSpanProcessor, AlwaysOnSampler, AlwaysOffSampler } =
  coreRequire('@opentelemetry/sdk-trace');
const { MeterProvider, MetricReader } = coreRequire('@opentelemetry/sdk-metrics');
let exported = 0;
const discard = {
  export(spans, done) {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};
const tracerProvider = new TracerProvider({
  sampler: new AlwaysOnSampler(),
  spanProcessors: [new BatchSpanProcessor({ exporter: discard })],
});
class Reader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}
const reader = new Reader();
const meterProvider = new MeterProvider({ readers: [reader] });
const sdkTracer = tracerProvider.getTracer('bench');
const unsampled = new TracerProvider({
  sampler: new AlwaysOffSampler(),
  spanProcessors: [new BatchSpanProcessor({ exporter: discard })],
});

// --- An RS256 token and a loopback JWKS, hit only while warming up.
const ISSUER = 'https://issuer.bench/oidc';
const AUDIENCE = 'https://api.bench/orders';
const b64 = (x) => Buffer.from(x).toString('base64url');
const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const now = Math.floor(Date.now() / 1000);
const input = `${b64(JSON.stringify({ alg: 'RS256', kid: 'rs-bench', typ: 'at+jwt' }))}.${b64(
  JSON.stringify({
    iss: ISSUER,
    sub: 'user-1234567890',
    aud: AUDIENCE,
    client_id: 'bench-client',
    scope: 'read:orders write:orders',
    iat: now,
    exp: now + 24 * 3600,
    jti: 'c4a1e3b0-3c7d-4d43-9a5f-1c3b2e9a7f10',
  }),
)}`;
const token = `${input}.${b64(sign('sha256', Buffer.from(input), pair.privateKey))}`;
const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'rs-bench', alg: 'RS256', use: 'sig' };
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const common = {
  issuer: ISSUER,
  audience: AUDIENCE,
  jwksUri: `http://127.0.0.1:${server.address().port}/jwks`,
};

const variants = (cache) => {
  const c = cache ? {} : { cache: false };
  const off = present.createVerifier({ ...common, ...c, telemetry: false });
  return {
    baseline: baseline.createVerifier({ ...common, ...c }),
    absent: absent.createVerifier({ ...common, ...c }),
    off,
    noop: present.createVerifier({ ...common, ...c }),
    'sdk-span': {
      verify: (t) => {
        const span = sdkTracer.startSpan('bench', { kind: 0 });
        return off.verify(t).then((info) => {
          span.end();
          return info;
        });
      },
    },
    spans: present.createVerifier({ ...common, ...c, telemetry: { tracerProvider, meterProvider } }),
    'sampled-out': present.createVerifier({
      ...common,
      ...c,
      telemetry: { tracerProvider: unsampled, meterProvider },
    }),
    metrics: present.createVerifier({
      ...common,
      ...c,
      telemetry: { tracerProvider, meterProvider, spans: false },
    }),
  };
};
const cases = [
  { mode: 'cached', verifiers: variants(true) },
  { mode: 'uncached', verifiers: variants(false) },
];
for (const { verifiers } of cases)
  for (const [name, v] of Object.entries(verifiers)) {
    const info = await v.verify(token);
    if (info.subject !== 'user-1234567890') throw new Error(`${name} did not verify`);
  }

async function sample(verifier) {
  const end = performance.now() + SAMPLE_MS;
  const start = performance.now();
  const cpu = process.cpuUsage();
  let ops = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await verifier.verify(token);
    ops += 50;
  }
  const used = process.cpuUsage(cpu);
  const seconds = CPU_CLOCK ? (used.user + used.system) / 1e6 : (performance.now() - start) / 1000;
  return seconds / ops; // seconds per call
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** The first and third quartiles: how far apart the rounds are, i.e. what this run can resolve. */
const quartiles = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil(((s.length - 1) * 3) / 4)]];
};
const DIFFS = [
  ['absent', 'baseline'],
  ['off', 'baseline'],
  ['noop', 'off'],
  ['spans', 'off'],
  ['sdk-span', 'off'],
  ['spans', 'sdk-span'],
  ['sampled-out', 'off'],
  ['metrics', 'off'],
];
const results = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (const { mode, verifiers } of cases) {
    const names = Object.keys(verifiers);
    const order = names.map((_, i) => names[(i + round) % names.length]);
    const us = {};
    for (const name of order) us[name] = (await sample(verifiers[name])) * 1e6;
    if (round === 0) continue; // warm-up
    const r = (results[mode] ??= { us: {}, diffs: {} });
    for (const name of names) (r.us[name] ??= []).push(us[name]);
    for (const [a, b] of DIFFS) (r.diffs[`${a} − ${b}`] ??= []).push(us[a] - us[b]);
  }
  if (round > 0) process.stderr.write(`round ${round}/${ROUNDS}\r`);
}
server.close();
await tracerProvider.shutdown();
await unsampled.shutdown();
const collected = await reader.collect();
await meterProvider.shutdown();
const counted = collected.resourceMetrics.scopeMetrics
  .flatMap((s) => s.metrics)
  .find((m) => m.descriptor.name === 'gatehouse.authentications')
  ?.dataPoints.reduce((sum, p) => sum + p.value, 0);

const lines = [
  `node ${process.version}, ${ROUNDS} rounds x ${SAMPLE_MS} ms per benchmark, RS256, medians; differences paired per round; ` +
    `${CPU_CLOCK ? 'per second of process CPU time' : 'per elapsed second'}; baseline = ${baseCommit}`,
  '',
  '| mode | baseline | absent | off | noop | sdk-span | spans | sampled-out | metrics | absent − baseline | spans − off | spans − sdk-span | sampled-out − off | metrics − off |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
const summary = {};
for (const mode of Object.keys(results)) {
  const r = results[mode];
  const us = Object.fromEntries(Object.entries(r.us).map(([k, xs]) => [k, median(xs)]));
  const diff = Object.fromEntries(Object.entries(r.diffs).map(([k, xs]) => [k, median(xs)]));
  summary[mode] = {
    us: Object.fromEntries(Object.entries(us).map(([k, v]) => [k, +v.toFixed(3)])),
    diffs: Object.fromEntries(Object.entries(diff).map(([k, v]) => [k, +v.toFixed(3)])),
    quartiles: Object.fromEntries(
      Object.entries(r.diffs).map(([k, xs]) => [k, quartiles(xs).map((v) => +v.toFixed(3))]),
    ),
  };
  const f = (x) => x.toFixed(2);
  const s = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
  lines.push(
    `| ${mode} | ${f(us.baseline)} | ${f(us.absent)} | ${f(us.off)} | ${f(us.noop)} | ${f(us['sdk-span'])} | ${f(us.spans)} | ${f(us['sampled-out'])} | ${f(us.metrics)} | ${s(diff['absent − baseline'])} | ${s(diff['spans − off'])} | ${s(diff['spans − sdk-span'])} | ${s(diff['sampled-out − off'])} | ${s(diff['metrics − off'])} |`,
  );
}
const c = summary.cached.diffs;
const u = summary.uncached.diffs;
const range = (mode, key) => `(rounds' quartiles ${summary[mode].quartiles[key].join(' … ')})`;
const verdict = (ok) => (ok ? 'PASS' : 'MISS');
lines.push(
  '',
  // The hooks cost the same per call with or without the result cache; the cached row resolves it, the
  // uncached one (a 2048-bit RSA check per call) only to within the spread of its rounds.
  `absent − baseline: cached ${c['absent − baseline']} µs ${range('cached', 'absent − baseline')} (target ≤ 0.1) ` +
    `${verdict(c['absent − baseline'] <= 0.1)}; uncached ${u['absent − baseline']} µs ${range('uncached', 'absent − baseline')}`,
  `spans − off: cached ${c['spans − off']} µs ${range('cached', 'spans − off')} (target ≤ 1.5) ${verdict(c['spans − off'] <= 1.5)}, ` +
    `uncached ${u['spans − off']} µs ${range('uncached', 'spans − off')} (target ≤ 3) ${verdict(u['spans − off'] <= 3)}`,
  `of which the SDK's own span: cached ${c['sdk-span − off']} µs, uncached ${u['sdk-span − off']} µs; ` +
    `Gatehouse's share (spans − sdk-span): cached ${c['spans − sdk-span']} µs, uncached ${u['spans − sdk-span']} µs`,
  `sampled out (AlwaysOff): cached ${c['sampled-out − off']} µs, uncached ${u['sampled-out − off']} µs over off; ` +
    `API installed without an SDK: cached ${c['noop − off']} µs, uncached ${u['noop − off']} µs; ` +
    `metrics only (spans: false): cached ${c['metrics − off']} µs, uncached ${u['metrics − off']} µs over off`,
  `spans exported: ${exported}; authentications counted by the metrics: ${counted}`,
);
console.log(lines.join('\n'));
writeFileSync(
  join(here, '../results/core-telemetry.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, sampleMs: SAMPLE_MS, clock: CPU_CLOCK ? 'cpu' : 'wall', baseline: baseCommit, results: summary }, null, 2)}\n`,
);
