/**
 * The `gatehouse-issuer` binary: check the Node.js version first (nothing else is loaded before), then
 * run the command (`main.ts`).
 *
 * @module
 */
import { tooOld } from './node-version.js';

const refusal = tooOld(process.versions.node);
if (refusal === undefined) {
  await import('./main.js');
} else {
  process.stderr.write(`${refusal}\n`);
  process.exitCode = 1;
}
