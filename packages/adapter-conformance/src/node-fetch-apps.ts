/**
 * The suite's Request-based apps on Node: Hono with `@gatehouse/hono`, and the plain fetch handler
 * (fetch-app.ts), each served by `@hono/node-server`'s request listener on the same `node:http` /
 * `node:https` server as the other frameworks (so `maxHeaderSize` and TLS client certificates apply).
 *
 * @module
 */
import { peerCertificate } from '@gatehouse/core';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { type AppSetup, createNodeServer, listen, type RunningApp } from './app.js';
import { createFetchHandler } from './fetch-app.js';
import { createHonoApp } from './hono-app.js';

/**
 * `@hono/node-server` refuses a request without `Host` (HTTP/1.0) with a 400 of its own unless it has a
 * host name to build the URL with; core ignores that name (without `Host` no proof can match, as on
 * the other frameworks), so any will do.
 */
const NODE_SERVER = { hostname: 'localhost' };

/** Start the Hono app of the suite on Node. */
export function startHonoNode(setup: AppSetup): Promise<RunningApp> {
  const app = createHonoApp(setup);
  return listen(createNodeServer(setup, getRequestListener(app.fetch, NODE_SERVER)));
}

/** Start the Hono app of the suite on Node, each route requirement checked in one middleware (`auth.requireScope()`). */
export function startHonoNodeOneLayer(setup: AppSetup): Promise<RunningApp> {
  const app = createHonoApp({ ...setup, oneLayer: true });
  return listen(createNodeServer(setup, getRequestListener(app.fetch, NODE_SERVER)));
}

/** Start the plain fetch handler of the suite on Node. */
export function startFetchNode(setup: AppSetup): Promise<RunningApp> {
  const handle = createFetchHandler(setup);
  const listener = getRequestListener(
    (request, env) =>
      handle(request, { clientCertificate: peerCertificate((env as HttpBindings).incoming.socket) }),
    NODE_SERVER,
  );
  return listen(createNodeServer(setup, listener));
}
