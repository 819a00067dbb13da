/**
 * The timing loop of the in-process benchmarks (hono-node-micro-main.mjs on Node,
 * hono-fetch-micro-main.mjs on Bun, ../http/nestjs-micro.mjs): CPU time per request, configurations
 * alternating in rounds.
 */

/** CPU time (ns) per call of `serve`, not wall time: on a shared machine, time spent waiting for a core does not count. */
async function time(serve, n) {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await serve();
  const { user, system } = process.cpuUsage(start);
  return ((user + system) * 1000) / n;
}

/**
 * One warm-up pass of each configuration, then `rounds` rounds of `iterations` calls each, the
 * configurations taking turns. Resolves to each configuration's samples (ns per call).
 *
 * @param {Record<string, () => Promise<void>>} serves
 */
export async function timeRounds(serves, rounds, iterations) {
  const samples = Object.fromEntries(Object.keys(serves).map((config) => [config, []]));
  for (const serve of Object.values(serves)) await time(serve, iterations);
  for (let round = 0; round < rounds; round++)
    for (const [config, serve] of Object.entries(serves)) samples[config].push(await time(serve, iterations));
  return samples;
}
