/**
 * The console's built files (`dist/console`: the package build copies them there from the private
 * `@gatehouse/console` package's Vite build, see scripts/copy-console.mjs), read once into memory.
 * `index.html` gets the console's public path written into its asset URLs, since the base URL (and so
 * the path) is known only when the issuer starts.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file, ready to send. */
export interface ConsoleAsset {
  readonly type: string;
  readonly body: Buffer;
}

/** The index page and the hashed assets by name (`assets/index-3f2a….js`). */
export interface ConsoleAssets {
  readonly index: ConsoleAsset;
  readonly files: ReadonlyMap<string, ConsoleAsset>;
}

const TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
});

/**
 * Where the built console is: next to the bundle (`dist/console`, when running the build) or in the
 * package's `dist/` (when running from `src/`, as the tests do).
 */
function candidates(): string[] {
  const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
  return [here('./console/'), here('../../dist/console/')];
}

/**
 * Read the built console. Resolves to `undefined` when it was not built (the issuer then answers
 * `/console` with a 503 saying so).
 *
 * @example
 * ```ts
 * const assets = loadConsoleAssets('/console/');
 * assets?.files.get('assets/index-3f2a.js');
 * ```
 */
export function loadConsoleAssets(publicPath: string, dirs = candidates()): ConsoleAssets | undefined {
  const dir = dirs.find((path) => existsSync(join(path, 'index.html')));
  if (dir === undefined) return undefined;
  const html = readFileSync(join(dir, 'index.html'), 'utf8').replaceAll(
    '"./assets/',
    `"${publicPath}assets/`,
  );
  const files = new Map<string, ConsoleAsset>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const type = TYPES[extname(name)];
      if (type !== undefined) files.set(`assets/${name}`, { type, body: readFileSync(join(assetDir, name)) });
    }
  }
  return { index: { type: 'text/html; charset=utf-8', body: Buffer.from(html) }, files };
}
