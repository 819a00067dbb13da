#!/usr/bin/env node
/**
 * @gatehouse/core verify() against its baselines, in one process, interleaved round-robin:
 *
 *   floor        crypto.verify of the same signature bytes with a pre-imported KeyObject, pre-split
 *                (ES256: the JWS R‖S form, dsaEncoding 'ieee-p1363')
 *   floor-der    ES256 only: the same signature re-encoded as DER, bare KeyObject (OpenSSL's fastest path)
 *   jose         jose.jwtVerify with a pre-imported key, issuer + audience + algorithms checks
 *   fast-jwt     fast-jwt's sync verifier (no cache; the fastest peer), PEM key, iss + aud + algorithms
 *                (loaded from bench/http's dependencies: `pnpm install --ignore-workspace` there; skipped
 *                when absent)
 *   gatehouse    createVerifier().verify(), warmed on a loopback JWKS, result cache off
 *   multi        the same with three issuers, each with its own key set (result cache off)
 *   cached       createVerifier().verify(), result cache on, the same token repeated
 *
 * Ratios are computed per round (same conditions) and reported as medians; "µs over floor" is
 * 1/gatehouse − 1/floor per round (ES256: the DER floor). Absolute numbers move with the machine; the
 * ratios are what the targets are about. Run: ./dev bench (or node this file). Set BENCH_ROUNDS /
 * BENCH_SAMPLE_MS to change the effort. Pins itself to CPU 0 with taskset when present (BENCH_CPU
 * picks another). Rates are per second of this process's CPU time (BENCH_CLOCK=wall: elapsed time),
 * so time the process spends descheduled on a shared machine does not count.
 */
import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (!process.env.GH_BENCH_PINNED && spawnSync('taskset', ['-c', '0', 'true']).status === 0) {
  const r = spawnSync(
    'taskset',
    ['-c', process.env.BENCH_CPU ?? '0', process.execPath, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      env: { ...process.env, GH_BENCH_PINNED: '1' },
    },
  );
  process.exit(r.status ?? 1);
}

const { createVerifier } = await import(join(here, '../../packages/core/dist/index.js'));
const jose = await import('jose').catch(
  () => import(join(here, '../../packages/core/node_modules/jose/dist/webapi/index.js')),
);

/** fast-jwt as @fastify/jwt (a bench/http dependency) resolves it, or `undefined` when not installed. */
async function loadFastJwt() {
  try {
    const fastifyJwt = realpathSync(join(here, '../http/node_modules/@fastify/jwt/package.json'));
    return await import(createRequire(fastifyJwt).resolve('fast-jwt'));
  } catch {
    return undefined;
  }
}
const fastJwt = await loadFastJwt();

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const CPU_CLOCK = process.env.BENCH_CLOCK !== 'wall';
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 400);
const ISSUER = 'https://issuer.bench/oidc';
const AUDIENCE = 'https://api.bench/orders';

const b64 = (x) => Buffer.from(x).toString('base64url');

function makeToken(alg) {
  let pair;
  if (alg === 'RS256') pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  else if (alg === 'ES256') pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  else pair = generateKeyPairSync('ed25519');
  const kid = `${alg}-bench`;
  const now = Math.floor(Date.now() / 1000);
  const header = b64(JSON.stringify({ alg, kid, typ: 'at+jwt' }));
  const payload = b64(
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
  );
  const input = `${header}.${payload}`;
  const data = Buffer.from(input);
  const signature =
    alg === 'ES256'
      ? sign('sha256', data, { key: pair.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign(alg === 'EdDSA' ? null : 'sha256', data, pair.privateKey);
  const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
  return {
    alg,
    token: `${input}.${b64(signature)}`,
    data,
    signature,
    publicKey: createPublicKey(pair.publicKey.export({ format: 'pem', type: 'spki' })),
    jwk,
  };
}

const algs = ['ES256', 'RS256', 'EdDSA'].map(makeToken);

// Loopback JWKS, hit only while warming up.
let jwksHits = 0;
const server = createServer((_req, res) => {
  jwksHits++;
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ keys: algs.map((a) => a.jwk) }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const jwksUri = `http://127.0.0.1:${server.address().port}/jwks`;
const common = { issuer: ISSUER, audience: AUDIENCE, jwksUri };
// Three issuers, each with its own key set (the server answers every path with the same JWKS).
const multiIssuer = {
  ...common,
  issuer: [
    { issuer: 'https://issuer-2.bench/oidc', jwksUri: `${jwksUri}/2` },
    { issuer: ISSUER, jwksUri },
    { issuer: 'https://issuer-3.bench/oidc', jwksUri: `${jwksUri}/3` },
  ],
};

function derFromP1363(sig) {
  const int = (b) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    b = b.subarray(i);
    return b[0] & 0x80
      ? Buffer.concat([Buffer.from([2, b.length + 1, 0]), b])
      : Buffer.concat([Buffer.from([2, b.length]), b]);
  };
  const body = Buffer.concat([int(sig.subarray(0, 32)), int(sig.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

const cases = [];
for (const a of algs) {
  const hash = a.alg === 'EdDSA' ? null : 'sha256';
  const floorKey = a.alg === 'ES256' ? { key: a.publicKey, dsaEncoding: 'ieee-p1363' } : a.publicKey;
  const joseKey = await jose.importJWK(a.jwk, a.alg);
  const uncached = createVerifier({ ...common, cache: false });
  const cached = createVerifier({ ...common });
  const multi = createVerifier({ ...multiIssuer, cache: false });
  await uncached.verify(a.token);
  await cached.verify(a.token);
  await multi.verify(a.token);
  if (multi.keyStats.keySets !== 3) throw new Error('the multi-issuer verifier should hold 3 key sets');
  const joseOpts = {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: [a.alg],
    requiredClaims: ['exp', 'sub'],
  };
  await jose.jwtVerify(a.token, joseKey, joseOpts);
  const group = [
    { name: 'floor', sync: () => verify(hash, a.data, floorKey, a.signature) },
    { name: 'jose', run: () => jose.jwtVerify(a.token, joseKey, joseOpts) },
    { name: 'gatehouse', run: () => uncached.verify(a.token) },
    { name: 'multi', run: () => multi.verify(a.token) },
    { name: 'cached', run: () => cached.verify(a.token) },
  ];
  if (fastJwt !== undefined) {
    const fast = fastJwt.createVerifier({
      key: a.publicKey.export({ format: 'pem', type: 'spki' }),
      algorithms: [a.alg],
      allowedIss: ISSUER,
      allowedAud: AUDIENCE,
      cache: false,
    });
    group.splice(2, 0, { name: 'fast-jwt', sync: () => fast(a.token).sub === 'user-1234567890' });
  }
  if (a.alg === 'ES256') {
    const der = derFromP1363(a.signature);
    group.splice(1, 0, { name: 'floor-der', sync: () => verify(hash, a.data, a.publicKey, der) });
  }
  for (const g of group) {
    const ok = g.sync ? g.sync() : await g.run();
    if (!ok) throw new Error(`${a.alg} ${g.name} did not verify`);
  }
  cases.push({ alg: a.alg, group });
}
const hitsAfterWarmup = jwksHits;

async function sample(bench) {
  const end = performance.now() + SAMPLE_MS;
  let ops = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  if (bench.sync) {
    while (performance.now() < end) {
      for (let i = 0; i < 20; i++) bench.sync();
      ops += 20;
    }
  } else {
    while (performance.now() < end) {
      for (let i = 0; i < 20; i++) await bench.run();
      ops += 20;
    }
  }
  const used = process.cpuUsage(cpu);
  const seconds = CPU_CLOCK ? (used.user + used.system) / 1e6 : (performance.now() - start) / 1000;
  return ops / seconds;
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (let c = 0; c < cases.length; c++) {
    const { alg, group } = cases[(c + round) % cases.length];
    const rates = {};
    const order = group.map((_, i) => group[(i + round) % group.length]);
    for (const bench of order) rates[bench.name] = await sample(bench);
    if (round === 0) continue; // warm-up
    const r = (results[alg] ??= { rates: {}, ratios: {} });
    for (const [name, rate] of Object.entries(rates)) (r.rates[name] ??= []).push(rate);
    const floor = rates['floor-der'] ?? rates.floor;
    for (const name of Object.keys(rates)) {
      (r.ratios[`${name}/jose`] ??= []).push(rates[name] / rates.jose);
      (r.ratios[`${name}/floor`] ??= []).push(rates[name] / rates.floor);
      (r.ratios[`${name}/gatehouse`] ??= []).push(rates[name] / rates.gatehouse);
      (r.ratios[`${name}/fast-jwt`] ??= []).push(rates[name] / (rates['fast-jwt'] ?? Number.NaN));
      (r.ratios[`${name}-over-floor`] ??= []).push(1e6 / rates[name] - 1e6 / floor);
    }
  }
  if (round > 0) process.stderr.write(`round ${round}/${ROUNDS}\r`);
}
server.close();

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(2));
const lines = [];
lines.push(
  `node ${process.version}, ${ROUNDS} rounds x ${SAMPLE_MS} ms per benchmark, medians; ratios paired per round; ${CPU_CLOCK ? 'ops per second of process CPU time' : 'ops per elapsed second'}`,
);
lines.push('');
lines.push('| alg | benchmark | ops/s | µs/op | x jose | x floor | x fast-jwt | µs over floor |');
lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const summary = {};
for (const { alg, group } of cases) {
  const r = results[alg];
  for (const { name } of group) {
    const rate = median(r.rates[name]);
    const xj = median(r.ratios[`${name}/jose`]);
    const xf = median(r.ratios[`${name}/floor`]);
    const xg = median(r.ratios[`${name}/gatehouse`]);
    const xfj = median(r.ratios[`${name}/fast-jwt`]);
    const over = median(r.ratios[`${name}-over-floor`]);
    lines.push(
      `| ${alg} | ${name} | ${fmt(rate)} | ${(1e6 / rate).toFixed(1)} | ${xj.toFixed(2)}x | ${xf.toFixed(2)}x | ${Number.isNaN(xfj) ? '–' : `${xfj.toFixed(2)}x`} | ${over.toFixed(1)} |`,
    );
    (summary[alg] ??= {})[name] = {
      opsPerSec: Math.round(rate),
      xJose: +xj.toFixed(3),
      xFloor: +xf.toFixed(3),
      xGatehouse: +xg.toFixed(3),
      xFastJwt: Number.isNaN(xfj) ? null : +xfj.toFixed(3),
      usOverFloor: +over.toFixed(2),
    };
  }
}
lines.push('');
lines.push(`JWKS fetches: ${hitsAfterWarmup} during warm-up, ${jwksHits - hitsAfterWarmup} while measuring.`);
const targets = [];
for (const alg of Object.keys(summary)) {
  const s = summary[alg];
  targets.push(
    `${alg}: uncached ${s.gatehouse.xJose.toFixed(2)}x jose (target >= 1.0) ${s.gatehouse.xJose >= 1 ? 'PASS' : 'MISS'}, ` +
      `${s.gatehouse.xFloor.toFixed(2)}x floor (target >= 0.8) ${s.gatehouse.xFloor >= 0.8 ? 'PASS' : 'MISS'}, ` +
      `cached ${s.cached.xJose.toFixed(1)}x jose (target >= 20) ${s.cached.xJose >= 20 ? 'PASS' : 'MISS'}`,
  );
  const over = s.gatehouse.usOverFloor;
  const vsFast = s.gatehouse.xFastJwt;
  targets.push(
    `${alg}: ${over.toFixed(1)} µs over the floor (target <= 8) ${over <= 8 ? 'PASS' : 'MISS'}, ` +
      `3 issuers ${s.multi.xGatehouse.toFixed(2)}x one issuer (target >= 0.95) ${s.multi.xGatehouse >= 0.95 ? 'PASS' : 'MISS'}` +
      (vsFast === null
        ? ''
        : `, ${vsFast.toFixed(2)}x fast-jwt${alg === 'EdDSA' ? '' : ` (target >= 1.3) ${vsFast >= 1.3 ? 'PASS' : 'MISS'}`}`),
  );
}
console.log([...lines, '', ...targets].join('\n'));
writeFileSync(
  join(here, '../results/core-verify.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, sampleMs: SAMPLE_MS, clock: CPU_CLOCK ? 'cpu' : 'wall', results: summary }, null, 2)}\n`,
);

/**
 * Introspection (RFC 7662) on a cache hit: an opaque token whose active answer is cached, against a
 * cached JWT (ES256), interleaved per round like the rest. Target: >= 0.9x the cached JWT. The loopback
 * introspection endpoint must be hit once, while warming up.
 */
async function introspectionBench() {
  let hits = 0;
  const now = Math.floor(Date.now() / 1000);
  const answer = JSON.stringify({
    active: true,
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'user-1234567890',
    client_id: 'bench-client',
    scope: 'read:orders write:orders',
    token_type: 'Bearer',
    iat: now,
    exp: now + 24 * 3600,
  });
  const endpoint = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  await new Promise((r) => endpoint.listen(0, '127.0.0.1', r));
  const opaque = 'Vk2sF9xQe1bench-opaque-access-token-0123456789';
  const introspected = createVerifier({
    ...common,
    introspection: {
      endpoint: `http://127.0.0.1:${endpoint.address().port}/introspect`,
      clientId: 'bench-api',
      clientSecret: 'bench-secret',
      cacheMaxAge: 600_000,
    },
  });
  await introspected.verify(opaque);
  const jwt = cases.find((c) => c.alg === 'ES256').group.find((g) => g.name === 'cached');
  const group = [
    { name: 'jwt-cached', run: jwt.run },
    { name: 'introspected-cached', run: () => introspected.verify(opaque) },
  ];
  const ratios = [];
  const rates = { 'jwt-cached': [], 'introspected-cached': [] };
  for (let round = 0; round <= ROUNDS; round++) {
    const r = {};
    for (const bench of round % 2 ? [...group].reverse() : group) r[bench.name] = await sample(bench);
    if (round === 0) continue;
    for (const name of Object.keys(r)) rates[name].push(r[name]);
    ratios.push(r['introspected-cached'] / r['jwt-cached']);
  }
  endpoint.close();
  const ratio = median(ratios);
  console.log(
    [
      '',
      '| benchmark | ops/s | µs/op |',
      '| --- | ---: | ---: |',
      ...Object.entries(rates).map(
        ([name, xs]) => `| ${name} | ${fmt(median(xs))} | ${(1e6 / median(xs)).toFixed(2)} |`,
      ),
      '',
      `introspection: cached opaque ${ratio.toFixed(2)}x cached JWT (target >= 0.9) ${ratio >= 0.9 ? 'PASS' : 'MISS'}; ` +
        `introspection requests: ${hits} (1 expected, during warm-up)`,
    ].join('\n'),
  );
  writeFileSync(
    join(here, '../results/core-introspection.json'),
    `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, sampleMs: SAMPLE_MS, ratio: +ratio.toFixed(3), opsPerSec: Object.fromEntries(Object.entries(rates).map(([n, xs]) => [n, Math.round(median(xs))])), introspectionRequests: hits }, null, 2)}\n`,
  );
}
await introspectionBench();
