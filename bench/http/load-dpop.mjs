/**
 * The DPoP load generator, started by dpop.mjs in its own process (pinned to core 1). Reads its
 * settings as JSON on stdin (url, token, the client's private JWK, proof count, connections, warmup,
 * duration), makes that many proofs with unique `jti` first, then runs autocannon so that every request
 * carries the next unused proof (warm-up discarded but checked, then the measured run).
 */
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import autocannon from 'autocannon';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, token, jwk, count, connections, warmup, duration } = JSON.parse(input);

const b64 = (x) => Buffer.from(x).toString('base64url');
const key = createPrivateKey({ key: jwk, format: 'jwk' });
const { d: _d, ...publicJwk } = jwk;
const header = b64(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicJwk }));
const ath = createHash('sha256').update(token).digest('base64url');
const iat = Math.floor(Date.now() / 1000);
const proofs = new Array(count);
for (let i = 0; i < count; i++) {
  const input = `${header}.${b64(JSON.stringify({ jti: randomUUID(), htm: 'GET', htu: url, iat, ath }))}`;
  proofs[i] = `${input}.${b64(sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }))}`;
}
let next = 0;

const run = async (seconds) => {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    headers: { authorization: `DPoP ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, dpop: proofs[next++ % count] } }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
};

const warm = warmup > 0 ? await run(warmup) : undefined;
const measured = await run(duration);
process.stdout.write(`${JSON.stringify({ warmup: warm, measured, proofsUsed: next, proofs: count })}\n`);
