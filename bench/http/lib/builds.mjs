/**
 * What an HTTP benchmark needs before it runs: bench/http's own dependencies and the built `dist/` of
 * the Gatehouse packages it measures (what runs is the dist, as users install it). Shared by run.mjs
 * and nestjs.mjs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(here, '../..');

/**
 * What is missing for `packages` (names under packages/), as lines telling how to get it.
 *
 * @param {string[]} packages
 * @returns {string[]}
 */
export function missingBuilds(packages) {
  const missing = [];
  if (!existsSync(join(here, 'node_modules/autocannon')))
    missing.push(
      'bench dependencies: flock /tmp/gatehouse-pnpm.lock pnpm install --dir bench/http --ignore-workspace',
    );
  for (const name of packages)
    if (!existsSync(join(root, `packages/${name}/dist/index.js`)))
      missing.push(`packages/${name}/dist: pnpm build`);
  return missing;
}

/** Warn about every package whose sources changed after its last build. */
export function warnStaleBuilds(packages, prefix = 'bench/http') {
  for (const name of packages) {
    const built = statSync(join(root, `packages/${name}/dist/index.js`)).mtimeMs;
    const src = join(root, `packages/${name}/src`);
    const stale = readdirSync(src, { recursive: true }).some((f) => statSync(join(src, f)).mtimeMs > built);
    if (stale) console.warn(`${prefix}: packages/${name}/src is newer than its dist: run pnpm build first`);
  }
}

/** The installed version of `name` in `from`'s node_modules (bench/http's by default), or `unknown`. */
export function versionOf(name, from = here) {
  try {
    return JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}
