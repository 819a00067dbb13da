/**
 * Proves the package works outside vitest: runs test/node/*.test.mjs under `node --test`, importing
 * the built package (dist/) by its name, as ESM and as CommonJS. dist/ is rebuilt first when it is missing or older than src/.
 */
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const coreRoot = join(root, '..', 'core');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const mtime = (path: string): number => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

/** Build `pkg` with its tsup when `dist/index.js` is missing (or, with `fresh`, older than its sources). */
async function ensureBuilt(pkg: string, fresh: boolean): Promise<void> {
  const built = mtime(join(pkg, 'dist', 'index.js'));
  if (built > 0 && (!fresh || built > newest(join(pkg, 'src')))) return;
  const tsupCli = join(
    dirname(createRequire(join(root, 'package.json')).resolve('tsup/package.json')),
    'dist',
    'cli-default.js',
  );
  await run(process.execPath, [tsupCli], { cwd: pkg });
}

beforeAll(async () => {
  // Core is another package: build it only when it was never built, not to race its own builds.
  await ensureBuilt(coreRoot, false);
  await ensureBuilt(root, true);
}, 120_000);

describe('node --test', () => {
  it('runs the node:test suite against the built package and passes', async () => {
    const result = await run(
      process.execPath,
      ['--test', '--test-reporter=tap', 'test/node/issuer.test.mjs', 'test/node/sender-constrained.test.mjs'],
      {
        cwd: root,
        timeout: 60_000,
      },
    ).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    const stdout = result.stdout ?? '';
    expect(stdout, result.stderr).toMatch(/^# pass 9$/m);
    expect(stdout).toMatch(/^# fail 0$/m);
    expect((result as { code?: number }).code ?? 0).toBe(0);
  }, 60_000);
});
