/**
 * scripts/import-cycles.mjs, run by `pnpm run lint` (so by `./dev check`): it fails on an import cycle
 * within a package's source folder, type-only imports and re-exports included, naming the cycle as a
 * path, and the repository has none. Fixtures are written to a temporary folder; the script runs in a
 * child process, as `./dev check` runs it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultFolders, importCycles } from '../scripts/import-cycles.mjs';

const root = join(import.meta.dirname, '..');
const script = join(root, 'scripts/import-cycles.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'import-cycles-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Write a source folder of `files` (path → text) and return its path. */
function fixture(name: string, files: Record<string, string>): string {
  const folder = join(scratch, name, 'src');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return folder;
}

async function run(...folders: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [script, ...folders], { cwd: root }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe('scripts/import-cycles.mjs', () => {
  it('fails on a cycle closed by a type-only import, naming it as a path', async () => {
    const folder = fixture('type-only', {
      'a.ts': "import { b } from './b.js';\nexport interface A { readonly b: typeof b }\n",
      'b.ts': "import type { A } from './a.js';\nexport const b = (a: A): A => a;\n",
      'c.ts': "import { b } from './b.js';\nexport const c = b;\n",
    });
    const { code, stderr } = await run(folder);
    expect(code).toBe(1);
    expect(stderr).toContain(`import cycle in ${relative(root, folder)}: a.ts → b.ts → a.ts`);
    expect(stderr).toContain('1 import cycle found');
    expect(stderr).not.toContain('c.ts');
  });

  it('follows re-exports, folder indexes, extensionless and .tsx specifiers, and names every cycle once', async () => {
    const folder = fixture('re-exports', {
      'index.ts': "export * from './store/index.js';\n",
      'store/index.ts': "export { rows } from './rows';\n",
      'store/rows.ts': "import type { View } from '../view.js';\nexport const rows: View[] = [];\n",
      'view.tsx':
        "import { rows } from './store';\nexport type View = { n: number };\nexport const all = rows;\n",
      'lazy.ts': "export const load = () => import('./lazy-target.js');\n",
      'lazy-target.ts': "import { load } from './lazy.js';\nexport const again = load;\n",
      'outside.ts': "import '../../other/x.js';\nimport 'node:fs';\nimport '@gatehouse/core';\n",
    });
    expect(importCycles(folder)).toEqual([
      ['lazy-target.ts', 'lazy.ts', 'lazy-target.ts'],
      ['store/index.ts', 'store/rows.ts', 'view.tsx', 'store/index.ts'],
    ]);
    const { code, stderr } = await run(folder);
    expect(code).toBe(1);
    expect(stderr).toContain('store/index.ts → store/rows.ts → view.tsx → store/index.ts');
    expect(stderr).toContain('2 import cycles found');
  });

  it('passes a folder without a cycle, and a file that imports itself is a cycle', async () => {
    const clean = fixture('clean', {
      'a.ts': "import { b } from './b.js';\nimport type { C } from './c.js';\nexport const a: C = b;\n",
      'b.ts': "import type { C } from './c.js';\nexport const b: C = 1;\n",
      'c.ts': 'export type C = number;\n',
    });
    expect(await run(clean)).toMatchObject({ code: 0, stderr: '' });
    const self = fixture('self', { 'a.ts': "export * from './a.js';\n" });
    expect(await run(self)).toMatchObject({ code: 1, stderr: expect.stringContaining(': a.ts → a.ts') });
  });

  it('checks every package’s and example’s src and the admin console’s, and the repository has no cycle', async () => {
    const folders = defaultFolders().map((folder) => relative(root, folder));
    expect(folders).toEqual(
      expect.arrayContaining([
        'packages/core/src',
        'packages/issuer/src',
        'packages/testing/src',
        'packages/console/src',
        'examples/demo/src',
      ]),
    );
    const { code, stdout, stderr } = await run();
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`no import cycle in ${folders.length} source folders`);
  });

  it('runs in `pnpm run lint`, so in `./dev check`', () => {
    const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.lint).toContain('node scripts/import-cycles.mjs');
  });
});
