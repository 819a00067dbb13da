#!/usr/bin/env node
/**
 * `./dev bench runtimes`: @gatehouse/core's WebCrypto build against `jose.jwtVerify` (pre-imported
 * key, same checks), per algorithm, on Bun, Deno and workerd — and on Node, for reference, where core
 * normally uses its node:crypto build. One run, interleaved rounds, ratios per round (medians).
 *
 * Bun and Deno time themselves with `performance.now()`. workerd's clock does not advance while code
 * runs, so there each sample is one request doing BATCH verifications, timed by this process.
 * Binaries: the `bun`, `deno` and `workerd` npm packages (installed with the workspace).
 */
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const bins = join(root, 'packages/adapter-conformance/node_modules/.bin');
const { build } = await import(
  pathToFileURL(join(root, 'packages/adapter-conformance/node_modules/esbuild/lib/main.js')).href
);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 300);
const BATCH = Number(process.env.BENCH_BATCH ?? 200);
const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const ISSUER = 'https://issuer.bench/oidc';
const AUDIENCE = 'https://api.bench/orders';
const b64 = (x) => Buffer.from(x).toString('base64url');

function makeToken(alg) {
  const pair =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
  const kid = `${alg}-bench`;
  const now = Math.floor(Date.now() / 1000);
  const header = b64(JSON.stringify({ alg, kid, typ: 'at+jwt' }));
  const payload = b64(
    JSON.stringify({
      iss: ISSUER,
      sub: 'user-1',
      aud: AUDIENCE,
      client_id: 'bench',
      scope: 'read:orders',
      iat: now,
      exp: now + 86400,
    }),
  );
  const input = Buffer.from(`${header}.${payload}`);
  const signature =
    alg === 'ES256'
      ? sign('sha256', input, { key: pair.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign(alg === 'EdDSA' ? null : 'sha256', input, pair.privateKey);
  return {
    alg,
    token: `${input}.${b64(signature)}`,
    jwk: { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
  };
}

const tokens = ['ES256', 'RS256', 'EdDSA'].map(makeToken);
const jwks = createServer((_req, res) =>
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ keys: tokens.map((t) => t.jwk) })),
).listen(0, '127.0.0.1');
await once(jwks, 'listening');
const config = {
  issuer: ISSUER,
  audience: AUDIENCE,
  jwksUri: `http://127.0.0.1:${jwks.address().port}/jwks`,
  tokens,
  rounds: ROUNDS,
  sampleMs: SAMPLE_MS,
};

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
const bundle = async (entry, conditions, platform = 'neutral') => {
  const outfile = join(dir, entry);
  await build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: 'esm',
    platform,
    target: 'es2022',
    conditions,
    mainFields: ['module', 'main'],
    alias: { '@gatehouse/core': join(root, 'packages/core/dist/web/index.js') },
    nodePaths: [join(root, 'packages/core/node_modules')],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
};

/** Run a runtime to completion (asynchronously: this process serves the JWKS meanwhile). */
async function run(command, args) {
  const child = spawn(pinned ? 'taskset' : command, pinned ? ['-c', '0', command, ...args] : args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`${command} failed: ${stderr}`);
  return JSON.parse(stdout.trim().split('\n').pop());
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = {};

// Node, WebCrypto build in this process (for reference: Node itself gets the node:crypto build).
const nodeBundle = await bundle('web-verify.mjs', ['node'], 'node');
results['node (WebCrypto build)'] = await (await import(pathToFileURL(nodeBundle).href)).measure(config);

const mainBundle = await bundle('bun-main.mjs', ['bun']);
results.bun = await run(join(bins, 'bun'), [mainBundle, JSON.stringify(config)]);
const denoBundle = await bundle('bun-main.mjs', ['deno']);
results.deno = await run(join(bins, 'deno'), [
  'run',
  '--allow-net',
  '--allow-env',
  denoBundle,
  JSON.stringify(config),
]);

// workerd: one worker, timed per request from here.
await bundle('worker-main.mjs', ['workerd', 'worker', 'browser']);
const port = await new Promise((resolve) => {
  const s = createNetServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
writeFileSync(
  join(dir, 'config.capnp'),
  `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = (modules = [(name = "worker", esModule = embed "worker-main.mjs")], compatibilityDate = "2025-09-01",
      bindings = [(name = "CONFIG", text = ${JSON.stringify(JSON.stringify(config))})])),
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
`,
);
const workerd = spawn(
  pinned ? 'taskset' : join(bins, 'workerd'),
  [...(pinned ? ['-c', '0', join(bins, 'workerd')] : []), 'serve', join(dir, 'config.capnp')],
  {
    detached: true,
    stdio: 'ignore',
  },
);
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(base).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 300) throw new Error('workerd did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  results.workerd = {};
  for (const { alg } of tokens) {
    results.workerd[alg] = { jose: [], gatehouse: [] };
    for (const name of ['jose', 'gatehouse']) await fetch(`${base}/?alg=${alg}&name=${name}&n=${BATCH}`);
    for (let round = 0; round < ROUNDS; round++)
      for (const name of ['jose', 'gatehouse']) {
        const start = performance.now();
        const res = await fetch(`${base}/?alg=${alg}&name=${name}&n=${BATCH}`);
        await res.text();
        results.workerd[alg][name].push(BATCH / ((performance.now() - start) / 1000));
      }
  }
} finally {
  process.kill(-workerd.pid, 'SIGTERM');
  jwks.close();
  rmSync(dir, { recursive: true, force: true });
}

const lines = [
  '| runtime | alg | gatehouse (WebCrypto) verify/s | jose.jwtVerify /s | x jose (median of rounds) |',
  '| --- | --- | ---: | ---: | ---: |',
];
const summary = {};
for (const [runtime, byAlg] of Object.entries(results))
  for (const [alg, r] of Object.entries(byAlg)) {
    const ratio = median(r.gatehouse.map((g, i) => g / r.jose[i]));
    summary[`${runtime} ${alg}`] = { gatehouse: median(r.gatehouse), jose: median(r.jose), xJose: ratio };
    lines.push(
      `| ${runtime} | ${alg} | ${Math.round(median(r.gatehouse)).toLocaleString('en')} | ${Math.round(median(r.jose)).toLocaleString('en')} | ${ratio.toFixed(2)}x |`,
    );
  }
console.log(lines.join('\n'));
writeFileSync(
  join(here, '../results/runtimes-verify.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, sampleMs: SAMPLE_MS, batch: BATCH, pinned, results: summary }, null, 2)}\n`,
);
