/**
 * The version of `@gatehouse/issuer` as installed: read from its package.json, found by walking up
 * from this module (`src/cli/` in the workspace, `dist/` once bundled).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Name of the package whose version is printed. */
const PACKAGE_NAME = '@gatehouse/issuer';

/**
 * The package version, or `unknown` when no package.json of `@gatehouse/issuer` is above `from`.
 *
 * @example
 * ```ts
 * packageVersion(); // '0.1.0'
 * ```
 */
export function packageVersion(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no (readable) package.json here: keep walking up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
