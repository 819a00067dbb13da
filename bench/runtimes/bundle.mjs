/**
 * Bundle a Hono benchmark entry for one runtime, as an app's bundler would: the workspace packages'
 * builds picked by the runtime's export condition (core's node:crypto build on Node, its WebCrypto
 * build on Bun). Shared by hono-http.mjs (the servers) and hono-node-micro.mjs (the in-process runs).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const { build } = await import(
  pathToFileURL(join(root, 'packages/adapter-conformance/node_modules/esbuild/lib/main.js')).href
);

/**
 * Bundle `entry` for `runtime` (`node` or `bun`) into `outfile`.
 *
 * @param {'node' | 'bun'} runtime
 * @param {string} entry
 * @param {string} outfile
 */
export async function bundleFor(runtime, entry, outfile) {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: runtime === 'node' ? 'node' : 'neutral',
    target: runtime === 'node' ? 'node22' : 'es2022',
    conditions: [runtime],
    mainFields: ['module', 'main'],
    nodePaths: [
      join(root, 'packages/adapter-conformance/node_modules'),
      join(root, 'packages/hono/node_modules'),
      join(root, 'packages/core/node_modules'),
    ],
    external: runtime === 'node' ? [] : ['@hono/node-server', 'node:*'],
    outfile,
    logLevel: 'warning',
  });
}
