/**
 * The app starter of each framework, keyed by name, so the suite can loop over {@link FRAMEWORKS}.
 *
 * @module
 */
import type { AppSetup, Framework, RunningApp } from './app.js';
import { startExpress } from './express-app.js';
import { startFastify } from './fastify-app.js';
import { startKoa } from './koa-app.js';
import { startNestExpress, startNestFastify } from './nestjs-app.js';

/**
 * Start the suite's app on a framework.
 *
 * @example
 * ```ts
 * const app = await START.koa({ verifier });
 * await app.close();
 * ```
 */
export const START: Readonly<Record<Framework, (setup: AppSetup) => Promise<RunningApp>>> = Object.freeze({
  express: startExpress,
  fastify: startFastify,
  koa: startKoa,
  'nestjs-express': startNestExpress,
  'nestjs-fastify': startNestFastify,
});
