/**
 * The body of the WebCrypto micro benchmark, bundled for each runtime (run.mjs): @gatehouse/core's
 * WebCrypto build (`verify()`, result cache off, keys warmed from a loopback JWKS) against
 * `jose.jwtVerify` with a pre-imported key and the same issuer/audience/algorithm checks.
 */
import { createVerifier } from '@gatehouse/core';
import * as jose from 'jose';

/** Build the contenders for every token of `config`; resolves once each has verified once. */
export async function prepare(config) {
  const out = {};
  for (const t of config.tokens) {
    const verifier = createVerifier({
      issuer: config.issuer,
      audience: config.audience,
      jwksUri: config.jwksUri,
      cache: false,
    });
    const key = await jose.importJWK(t.jwk, t.alg);
    const options = {
      issuer: config.issuer,
      audience: config.audience,
      algorithms: [t.alg],
      requiredClaims: ['exp', 'sub'],
    };
    const contenders = {
      jose: () => jose.jwtVerify(t.token, key, options),
      gatehouse: () => verifier.verify(t.token),
    };
    for (const run of Object.values(contenders)) await run();
    out[t.alg] = contenders;
  }
  return out;
}

/** `n` sequential verifications. */
export async function batch(run, n) {
  for (let i = 0; i < n; i++) await run();
}

/** Interleaved rounds timed with `performance.now()` (Bun, Deno): ops/s per contender per round. */
export async function measure(config) {
  const prepared = await prepare(config);
  const results = {};
  for (const [alg, contenders] of Object.entries(prepared)) {
    results[alg] = { jose: [], gatehouse: [] };
    for (let round = 0; round < config.rounds; round++) {
      for (const [name, run] of Object.entries(contenders)) {
        let ops = 0;
        const start = performance.now();
        const end = start + config.sampleMs;
        while (performance.now() < end) {
          await batch(run, 20);
          ops += 20;
        }
        results[alg][name].push(ops / ((performance.now() - start) / 1000));
      }
    }
  }
  return results;
}
