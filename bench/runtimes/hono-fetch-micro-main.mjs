/**
 * The in-process side of hono-node-micro.mjs on Bun (bundled by it): each configuration's Hono app
 * called through `app.fetch()` with a WHATWG `Request`, as `Bun.serve` hands one over, and no socket
 * I/O, so only what runs per request inside the process is timed. Configurations alternate in rounds;
 * prints one JSON line of CPU ns/request.
 */
import { createApp } from './hono-app.mjs';
import { timeRounds } from './micro-rounds.mjs';

const { specs, token, rounds, iterations } = JSON.parse(process.env.BENCH_MICRO);
const authorizationBytes = Buffer.from(`Bearer ${token}`, 'latin1');
const url = 'http://127.0.0.1:3000/orders';

/** One GET /orders with the token; the header value is a new flat string per request, as a server's parser makes. */
const request = () =>
  new Request(url, { headers: { authorization: authorizationBytes.toString('latin1'), accept: '*/*' } });

const serves = {};
for (const spec of specs) {
  const app = await createApp(spec);
  serves[spec.config] = async () => {
    const res = await app.fetch(request());
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    await res.arrayBuffer();
  };
}
console.log(JSON.stringify(await timeRounds(serves, rounds, iterations)));
