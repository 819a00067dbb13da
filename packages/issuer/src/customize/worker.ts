/**
 * The code a custom-claims worker thread runs, as text handed to `new Worker(…, { eval: true })`. Text,
 * not a function, so no bundler or test runner rewrites it (`import()` in particular): it runs the same
 * from sources, from the `dist/` build and under vitest, with no separate file to locate.
 *
 * Protocol: the worker imports the module and posts `{ type: 'ready' }` (or `{ type: 'load_failed' }`);
 * for each `{ id, input }` it posts `{ id, type: 'result', json }`, `{ id, type: 'denied', message }`
 * or `{ id, type: 'error', failure }`. Nothing the function throws (message, stack) leaves the worker:
 * only a failure category. The result is serialized here, so a cycle or a BigInt fails in the worker
 * and the main thread only ever parses a bounded string.
 *
 * @module
 */

/** The worker's source text (a CommonJS script with `require` in scope). */
export const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const DENIED = Symbol('denied');
const load = import(workerData.moduleUrl).then((module) => {
  const fn = module.getCustomJwtClaims ?? module.default?.getCustomJwtClaims;
  if (typeof fn !== 'function') throw new TypeError('no getCustomJwtClaims export');
  return fn;
});
load.then(
  () => parentPort.postMessage({ type: 'ready' }),
  () => parentPort.postMessage({ type: 'load_failed' }),
);
const fail = (id, failure) => parentPort.postMessage({ id, type: 'error', failure });
parentPort.on('message', async ({ id, input }) => {
  let denied;
  const api = Object.freeze({
    denyAccess(reason) {
      denied = typeof reason === 'string' ? reason : 'access denied';
      throw DENIED;
    },
  });
  let result;
  try {
    const fn = await load;
    result = await fn({
      token: input.token,
      context: input.context,
      environmentVariables: { ...workerData.environmentVariables },
      api,
    });
  } catch {
    if (denied === undefined) fail(id, 'threw');
    else parentPort.postMessage({ id, type: 'denied', message: denied });
    return;
  }
  if (denied !== undefined) return parentPort.postMessage({ id, type: 'denied', message: denied });
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return fail(id, 'not_an_object');
  let json;
  try {
    json = JSON.stringify(result);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'string') return fail(id, 'not_serializable');
  if (Buffer.byteLength(json) > workerData.maxResultBytes) return fail(id, 'too_large');
  parentPort.postMessage({ id, type: 'result', json });
});
`;
