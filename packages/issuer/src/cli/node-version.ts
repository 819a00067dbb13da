/**
 * The Node.js version check the `gatehouse-issuer` binary runs before it loads anything else: the
 * issuer needs `node:sqlite` unflagged and TypeScript-free ESM loading (Node 22.18), and on an older
 * Node the first import would fail with a stack trace (`ERR_UNKNOWN_BUILTIN_MODULE: node:sqlite`)
 * instead of saying what to install. This module imports nothing.
 *
 * @module
 */

/** The oldest Node.js the issuer runs on (its `engines.node`). */
export const MINIMUM_NODE = '22.18.0';

/**
 * The one line to print when `version` (`process.versions.node`) is older than {@link MINIMUM_NODE};
 * `undefined` when it is recent enough.
 *
 * @example
 * ```ts
 * tooOld('20.20.2'); // 'gatehouse-issuer needs Node.js 22.18.0 or later; this is Node.js 20.20.2. …'
 * tooOld('24.21.0'); // undefined
 * ```
 */
export function tooOld(version: string): string | undefined {
  const have = version.split('.').map(Number);
  const need = MINIMUM_NODE.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) > need[i]!) return undefined;
    if ((have[i] ?? 0) < need[i]!)
      return `gatehouse-issuer needs Node.js ${MINIMUM_NODE} or later; this is Node.js ${version}. Install a current Node.js (https://nodejs.org) and run it again.`;
  }
  return undefined;
}
