/**
 * Bundle the Worker into dist/worker.js with the export conditions workerd's own tooling uses
 * (`workerd`, `worker`, `browser`): `node scripts/build.ts`.
 *
 * @module
 */
import { join } from 'node:path';
import { build } from 'esbuild';

/** Bundle src/worker.ts into `outfile` (default dist/worker.js); resolves to its path. */
export async function buildWorker(
  outfile = join(import.meta.dirname, '..', 'dist', 'worker.js'),
): Promise<string> {
  await build({
    entryPoints: [join(import.meta.dirname, '..', 'src', 'worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

if (import.meta.main) await buildWorker();
