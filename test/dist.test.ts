/**
 * Every published package loads from its build output both by `import` and by `require` on the Node
 * running the tests (>= 22.18; `require(esm)`, since 22.12, makes the CJS builds work with ESM-only jose), and
 * both expose the same names. Runs in child processes, so no test-runner transform is involved.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

function exportNames(dir: string, mode: 'import' | 'require'): string[] {
  const script =
    mode === 'import'
      ? `import(process.argv[1]).then((m) => console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort())))`
      : `console.log(JSON.stringify(Object.keys(require(process.argv[1])).filter((k) => k !== 'default' && k !== 'module.exports').sort()))`;
  const entry = mode === 'import' ? join(dir, 'dist/index.js') : join(dir, 'dist/index.cjs');
  const out = execFileSync(process.execPath, ['-e', script, entry], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe.each(packages.map((p) => [p.manifest.name as string, p] as const))(
  '%s build',
  (_name, { dir, manifest }) => {
    it('declares an exports map with types first, and no side effects', () => {
      expect(manifest.sideEffects).toBe(false);
      const dot = manifest.exports['.'];
      for (const condition of ['import', 'require'] as const) {
        expect(Object.keys(dot[condition])[0]).toBe('types');
        for (const target of Object.values(dot[condition]) as string[])
          expect(existsSync(join(dir, target))).toBe(true);
      }
    });

    it('loads by import and by require with the same exports', () => {
      const esm = exportNames(dir, 'import');
      const cjs = exportNames(dir, 'require');
      expect(esm.length).toBeGreaterThan(0);
      expect(cjs).toEqual(esm);
    });
  },
);
