#!/usr/bin/env node
/**
 * DPoP (RFC 9449) per-request cost of @gatehouse/core against its baselines, in one process,
 * interleaved round-robin. Every request carries a DPoP-bound access token (the same one each time,
 * so Gatehouse's result cache holds it) and a fresh, pre-generated proof with a unique `jti`:
 *
 *   proof-floor    crypto.verify of each proof's signature with a pre-imported KeyObject, pre-split
 *                  (ES256: the DER form, OpenSSL's fastest path), awaited like the others — the one
 *                  check nobody can skip
 *   gatehouse      verifier.authenticate(request): token from the result cache, then every proof check
 *                  of RFC 9449 §4.3, `ath`, `cnf.jkt`, and the in-memory replay store
 *   auth0          express-oauth2-jwt-bearer 1.10 `auth({ dpop: { enabled: true } })`, called as Express
 *                  would call it, with the same token and proofs (it has no replay store and no cache)
 *
 * Targets: gatehouse − proof-floor ≤ 15 µs per request, and gatehouse ≥ 1.5x auth0. Run after a build:
 * `./dev bench dpop` (or node this file). BENCH_ROUNDS / BENCH_SAMPLE_MS change the effort.
 * Pins itself to CPU 0 with taskset when present.
 */
import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
if (!process.env.GH_BENCH_PINNED && spawnSync('taskset', ['-c', '0', 'true']).status === 0) {
  const r = spawnSync('taskset', ['-c', '0', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, GH_BENCH_PINNED: '1' },
  });
  process.exit(r.status ?? 1);
}

const { createVerifier, MemoryReplayStore } = await import(join(here, '../../packages/core/dist/index.js'));
const peers = createRequire(join(here, '../http/package.json'));
let auth0;
try {
  auth0 = peers('express-oauth2-jwt-bearer');
} catch {
  console.error('bench: express-oauth2-jwt-bearer missing; run ./dev bench dpop (it installs bench/http)');
  process.exit(1);
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 400);
const ISSUER = 'https://issuer.bench/oidc';
const AUDIENCE = 'https://api.bench/orders';
const URL_ = 'https://api.bench/orders';
const b64 = (x) => Buffer.from(x).toString('base64url');

// The issuer's key and a loopback JWKS (hit only while warming up).
const issuerPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const issuerJwk = {
  ...issuerPair.publicKey.export({ format: 'jwk' }),
  kid: 'bench-1',
  alg: 'ES256',
  use: 'sig',
};
let jwksHits = 0;
const server = createServer((_req, res) => {
  jwksHits++;
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [issuerJwk] }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const jwksUri = `http://127.0.0.1:${server.address().port}/jwks`;

function jws(header, payload, alg, key) {
  const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
  const data = Buffer.from(input);
  const sig =
    alg === 'ES256'
      ? sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' })
      : sign(alg === 'EdDSA' ? null : 'sha256', data, key);
  return `${input}.${b64(sig)}`;
}

function thumbprint(jwk) {
  const members =
    jwk.kty === 'EC' ? ['crv', 'kty', 'x', 'y'] : jwk.kty === 'OKP' ? ['crv', 'kty', 'x'] : ['e', 'kty', 'n'];
  const json = JSON.stringify(Object.fromEntries(members.map((m) => [m, jwk[m]])));
  return createHash('sha256').update(json).digest('base64url');
}

/** A bound token, and proofs for it, for one proof algorithm. */
function makeCase(alg, count) {
  const pair =
    alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const jwk = pair.publicKey.export({ format: 'jwk' });
  const now = Math.floor(Date.now() / 1000);
  const token = jws(
    { alg: 'ES256', kid: 'bench-1', typ: 'at+jwt' },
    {
      iss: ISSUER,
      sub: 'user-1234567890',
      aud: AUDIENCE,
      client_id: 'bench-client',
      scope: 'read:orders write:orders',
      iat: now,
      exp: now + 24 * 3600,
      jti: randomUUID(),
      cnf: { jkt: thumbprint(jwk) },
    },
    'ES256',
    issuerPair.privateKey,
  );
  const ath = createHash('sha256').update(token).digest('base64url');
  const header = { typ: 'dpop+jwt', alg, jwk };
  const proofs = [];
  for (let i = 0; i < count; i++)
    proofs.push(
      jws(header, { jti: randomUUID(), htm: 'GET', htu: URL_, iat: now, ath }, alg, pair.privateKey),
    );
  // The floor: each proof's signature, pre-split and pre-decoded (ES256: as DER), with a pre-imported
  // key — one signature check per request over distinct proofs, as the verifier does, and nothing else.
  const publicKey = createPublicKey(pair.publicKey.export({ format: 'pem', type: 'spki' }));
  const split = proofs.map((proof) => {
    const [h, p, s] = proof.split('.');
    const raw = Buffer.from(s, 'base64url');
    return [Buffer.from(`${h}.${p}`), alg === 'ES256' ? derFromP1363(raw) : raw];
  });
  let at = 0;
  const hash = alg === 'ES256' ? 'sha256' : null;
  const floor = () => {
    const [data, signature] = split[at++ % split.length];
    return verify(hash, data, publicKey, signature);
  };
  return { alg, token, proofs, floor };
}

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

// Enough unique proofs for every sample of every round (Gatehouse refuses a replay; auth0 gets the same).
const PROOFS = Number(process.env.BENCH_PROOFS ?? 80_000);
process.stderr.write(`generating ${PROOFS} proofs per algorithm…\n`);
const cases = ['ES256', 'EdDSA'].map((alg) => makeCase(alg, PROOFS));

function fakeExpressRequest(token, proof) {
  const headers = { host: 'api.bench', authorization: `DPoP ${token}`, dpop: proof };
  return {
    headers,
    method: 'GET',
    protocol: 'https',
    originalUrl: '/orders',
    url: '/orders',
    query: {},
    body: undefined,
    socket: {},
    get: (name) => headers[name.toLowerCase()],
    is: () => false,
  };
}

for (const c of cases) {
  const verifier = createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri,
    dpop: { replayStore: new MemoryReplayStore({ max: 4 * PROOFS }) },
  });
  const auth0Middleware = auth0.auth({
    issuer: ISSUER,
    audience: AUDIENCE,
    jwksUri,
    tokenSigningAlg: 'ES256',
    dpop: { enabled: true },
  });
  let next = 0;
  const proof = () => {
    if (next >= c.proofs.length) throw new Error('ran out of proofs: raise BENCH_PROOFS');
    return c.proofs[next++];
  };
  const gatehouse = () =>
    verifier.authenticate({
      headers: { authorization: `DPoP ${c.token}`, dpop: proof() },
      method: 'GET',
      url: URL_,
    });
  // The peer keeps no replay record, so it may cycle through the same proofs.
  let peerNext = 0;
  const peer = () =>
    new Promise((resolve, reject) => {
      const req = fakeExpressRequest(c.token, c.proofs[peerNext++ % c.proofs.length]);
      auth0Middleware(req, {}, (err) => (err ? reject(err) : resolve(req.auth)));
    });
  // Warm up and check each path really accepts (and Gatehouse really refuses a replay).
  const first = c.proofs[0];
  const info = await verifier.authenticate({
    headers: { authorization: `DPoP ${c.token}`, dpop: first },
    method: 'GET',
    url: URL_,
  });
  if (info.confirmation?.jkt === undefined) throw new Error('gatehouse did not bind');
  const replay = await verifier
    .authenticate({ headers: { authorization: `DPoP ${c.token}`, dpop: first }, method: 'GET', url: URL_ })
    .then(
      () => 'accepted',
      (e) => e.reason,
    );
  if (replay !== 'dpop_replay') throw new Error(`gatehouse replay check: ${replay}`);
  next = 1;
  const viaPeer = await peer();
  if (viaPeer?.payload?.sub !== 'user-1234567890') throw new Error('auth0 did not accept');
  if (!c.floor()) throw new Error('floor did not verify');
  c.group = [
    // Awaited like the other two: every request path of an API is asynchronous, and the comparison is
    // of the work per request, not of one promise more or less.
    { name: 'proof-floor', run: async () => c.floor() },
    { name: 'gatehouse', run: gatehouse },
    { name: 'auth0', run: peer },
  ];
}
const hitsAfterWarmup = jwksHits;

async function sample(bench) {
  const end = performance.now() + SAMPLE_MS;
  let ops = 0;
  const start = performance.now();
  while (performance.now() < end) {
    if (bench.sync) for (let i = 0; i < 20; i++) bench.sync();
    else for (let i = 0; i < 20; i++) await bench.run();
    ops += 20;
  }
  return ops / ((performance.now() - start) / 1000);
}

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const results = {};
for (let round = 0; round <= ROUNDS; round++) {
  for (let i = 0; i < cases.length; i++) {
    const { alg, group } = cases[(i + round) % cases.length];
    const rates = {};
    for (const bench of group.map((_, k) => group[(k + round) % group.length]))
      rates[bench.name] = await sample(bench);
    if (round === 0) continue;
    const r = (results[alg] ??= { rates: {}, overhead: [], xPeer: [] });
    for (const [name, rate] of Object.entries(rates)) (r.rates[name] ??= []).push(rate);
    r.overhead.push(1e6 / rates.gatehouse - 1e6 / rates['proof-floor']);
    r.xPeer.push(rates.gatehouse / rates.auth0);
  }
  if (round > 0) process.stderr.write(`round ${round}/${ROUNDS}\r`);
}
server.close();

const fmt = (n) => Math.round(n).toLocaleString('en-US');
const lines = [
  `node ${process.version}, ${ROUNDS} rounds x ${SAMPLE_MS} ms per benchmark, medians; ratios paired per round`,
  '',
  '| proof alg | benchmark | requests/s | µs/request |',
  '| --- | --- | ---: | ---: |',
];
const summary = {};
const targets = [];
for (const { alg, group } of cases) {
  const r = results[alg];
  for (const { name } of group) {
    const rate = median(r.rates[name]);
    lines.push(`| ${alg} | ${name} | ${fmt(rate)} | ${(1e6 / rate).toFixed(1)} |`);
    (summary[alg] ??= {})[name] = { opsPerSec: Math.round(rate) };
  }
  const overhead = median(r.overhead);
  const xPeer = median(r.xPeer);
  summary[alg].overheadUs = +overhead.toFixed(2);
  summary[alg].xAuth0 = +xPeer.toFixed(3);
  targets.push(
    `${alg}: gatehouse = one proof signature + ${overhead.toFixed(1)} µs (target <= 15) ${overhead <= 15 ? 'PASS' : 'MISS'}, ` +
      `${xPeer.toFixed(2)}x express-oauth2-jwt-bearer (target >= 1.5) ${xPeer >= 1.5 ? 'PASS' : 'MISS'}`,
  );
}
lines.push(
  '',
  `JWKS fetches: ${hitsAfterWarmup} during warm-up, ${jwksHits - hitsAfterWarmup} while measuring.`,
);
console.log([...lines, '', ...targets].join('\n'));
writeFileSync(
  join(here, '../results/core-dpop.json'),
  `${JSON.stringify({ node: process.version, date: new Date().toISOString(), rounds: ROUNDS, sampleMs: SAMPLE_MS, results: summary }, null, 2)}\n`,
);
