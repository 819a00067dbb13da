/**
 * The in-process side of hono-node-micro.mjs (bundled by it): each configuration's Hono app behind
 * @hono/node-server's request listener, driven with real `IncomingMessage` / `ServerResponse` objects
 * and no socket I/O, so only what runs per request inside the process is timed — the part the
 * middleware can change. Configurations alternate in rounds; prints one JSON line of CPU ns/request.
 */

import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createApp } from './hono-app.mjs';
import { timeRounds } from './micro-rounds.mjs';

const { specs, token, rounds, iterations } = JSON.parse(process.env.BENCH_MICRO);
const socket = new Socket();

const authorizationBytes = Buffer.from(`Bearer ${token}`, 'latin1');

/**
 * One GET /orders with the token, as node:http would hand it over: the header value is a new flat
 * string per request, as its parser makes one from the bytes received.
 */
function request() {
  const req = new IncomingMessage(socket);
  const authorization = authorizationBytes.toString('latin1');
  req.method = 'GET';
  req.url = '/orders';
  req.httpVersion = '1.1';
  req.rawHeaders = ['host', '127.0.0.1:3000', 'authorization', authorization, 'accept', '*/*'];
  req.headers = { host: '127.0.0.1:3000', authorization, accept: '*/*' };
  req.complete = true;
  req.push(null);
  return req;
}

const listeners = {};
for (const spec of specs) listeners[spec.config] = getRequestListener((await createApp(spec)).fetch);

/** Serve one request; resolves once the response is ended. */
async function serve(listen) {
  const req = request();
  const res = new ServerResponse(req);
  await listen(req, res);
  if (res.statusCode !== 200 || !res.writableEnded) throw new Error(`status ${res.statusCode}`);
}

const serves = Object.fromEntries(
  Object.entries(listeners).map(([config, listen]) => [config, () => serve(listen)]),
);
console.log(JSON.stringify(await timeRounds(serves, rounds, iterations)));
