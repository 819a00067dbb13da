/**
 * `@gatehouse/adapter-conformance` (private): one table of requests run against real Express, Fastify
 * and Koa servers. Every adapter must give the same status, `WWW-Authenticate` and JSON body.
 *
 * @example
 * ```ts
 * import { FRAMEWORKS, ROWS, send, START } from '@gatehouse/adapter-conformance';
 * const app = await START.express({ verifier });
 * const res = await send(app.url, ROWS[0]!.request(tokens));
 * ```
 *
 * @module
 */
export {
  type AppSetup,
  describeAuth,
  FRAMEWORKS,
  type Framework,
  listen,
  type RunningApp,
  SCOPES,
} from './app.js';
export {
  AUDIENCE,
  type Expectation,
  INJECTION,
  mintTokens,
  ROWS,
  type Row,
  SUBJECT,
  type Tokens,
  VARIANTS,
  type Variant,
} from './cases.js';
export { send, type TestRequest, type TestResponse } from './client.js';
export { startExpress } from './express-app.js';
export { startFastify } from './fastify-app.js';
export { startKoa } from './koa-app.js';
export { START } from './start.js';
