#!/usr/bin/env node
/**
 * `./dev bench nestjs-micro`: what the `@gatehouse/nestjs` guard adds per request with a cached token, in
 * process: bare Nest, Nest with a global guard that lets everything through (`nest-noop`: what any guard
 * costs in Nest) and Nest with `GatehouseModule` + `@RequireScope()` (`gatehouse-cached`), on the Express
 * and Fastify platforms, each app's HTTP server request listener fed real `IncomingMessage`s without
 * socket I/O (as runtimes/hono-node-micro.mjs does for Hono). A quiet way to see the guard's own cost on a
 * busy machine, next to the HTTP benchmark (nestjs.mjs), whose ratios include parsing and the socket.
 * Configurations alternate in rounds; CPU time (not wall time) per request, median of rounds.
 * Env: BENCH_ROUNDS (7), BENCH_ITERATIONS (20000), BENCH_ALGS (ES256,RS256), BENCH_FRAMEWORKS
 * (nestjs-express,nestjs-fastify). Run with `--cpu-prof` and BENCH_CONFIGS=gatehouse-cached to profile
 * the guard alone.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { timeRounds } from '../runtimes/micro-rounds.mjs';
import { missingBuilds } from './lib/builds.mjs';
import { startIssuer } from './lib/issuer.mjs';
import { createNest } from './lib/nest.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const ROUNDS = Number(env('BENCH_ROUNDS', 7));
const ITERATIONS = Number(env('BENCH_ITERATIONS', 20000));
const ALGS = env('BENCH_ALGS', 'ES256,RS256').split(',');
const FRAMEWORKS = env('BENCH_FRAMEWORKS', 'nestjs-express,nestjs-fastify').split(',');
const CONFIGS = env('BENCH_CONFIGS', 'bare,nest-noop,gatehouse-cached').split(',');

const missing = missingBuilds(['core', 'nestjs']);
if (missing.length > 0) {
  console.error(`bench/http/nestjs-micro: cannot run yet:\n  ${missing.join('\n  ')}`);
  process.exit(2);
}

const socket = new Socket();

/**
 * One GET /orders with `authorization`, as node:http hands it over: the header value is a new flat
 * string per request, as its parser makes one from the bytes received.
 */
function request(authorizationBytes) {
  const req = new IncomingMessage(socket);
  const authorization = authorizationBytes.toString('latin1');
  req.method = 'GET';
  req.url = '/orders';
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  req.rawHeaders = ['host', '127.0.0.1:3000', 'authorization', authorization, 'accept', '*/*'];
  req.headers = { host: '127.0.0.1:3000', authorization, accept: '*/*' };
  req.complete = true;
  req.push(null);
  return req;
}

/** Serve one request through `listen`; resolves once the response is ended with 200. */
function serve(listen, authorizationBytes) {
  const req = request(authorizationBytes);
  const res = new ServerResponse(req);
  return new Promise((resolve, reject) => {
    // Without a socket 'finish' never comes: say when the app ends the response. An own property, as
    // Express swaps the response's prototype for its own.
    res.end = function end(...args) {
      const result = ServerResponse.prototype.end.apply(this, args);
      if (res.statusCode === 200) resolve();
      else reject(new Error(`status ${res.statusCode}`));
      return result;
    };
    listen(req, res);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ns = (x) => (x === undefined ? '–' : `${Math.round(x).toLocaleString('en')} ns`);
const issuer = await startIssuer();
const lines = [
  '| platform | alg | bare | no-op guard | gatehouse guard, cached | added over bare | added over no-op |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
];
try {
  for (const framework of FRAMEWORKS)
    for (const alg of ALGS) {
      const authorizationBytes = Buffer.from(`Bearer ${issuer.tokens[alg].good}`, 'latin1');
      const apps = [];
      const listeners = {};
      for (const config of CONFIGS) {
        const spec = issuer.spec({ alg });
        const platform = framework.replace('nestjs-', '');
        const app = await createNest(platform, config, spec);
        // Fastify builds its request pipeline when ready (listen() would get it there).
        if (platform === 'fastify') await app.getHttpAdapter().getInstance().ready();
        apps.push(app);
        listeners[config] = app.getHttpServer().listeners('request')[0];
      }
      const serves = Object.fromEntries(
        CONFIGS.map((config) => [config, () => serve(listeners[config], authorizationBytes)]),
      );
      const samples = await timeRounds(serves, ROUNDS, ITERATIONS);
      for (const app of apps) await app.close();
      const [bare, noop, cached] = ['bare', 'nest-noop', 'gatehouse-cached'].map((c) =>
        samples[c] ? median(samples[c]) : undefined,
      );
      const added = (a, b) => (a === undefined || b === undefined ? undefined : a - b);
      lines.push(
        `| ${framework} | ${alg} | ${ns(bare)} | ${ns(noop)} | ${ns(cached)} | ${ns(added(cached, bare))} | ${ns(added(cached, noop))} |`,
      );
      process.stderr.write(`${framework} ${alg} done\n`);
    }
} finally {
  await issuer.close();
}
console.log(lines.join('\n'));
