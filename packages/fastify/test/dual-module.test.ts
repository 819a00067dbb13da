/**
 * A project that imports `@gatehouse/fastify` from both an ES module (`.mts`) and a CommonJS file
 * (`.cts`) type-checks with `skipLibCheck: false` (issue #29 item 9). The fixture in
 * test/fixtures/dual-module is compiled against the built package (dist, reached through the
 * package's own `exports`, so the `.mts` file reads dist/index.d.ts and the `.cts` file
 * dist/index.d.cts): that is where the two `declare module 'fastify'` augmentations meet, each naming
 * core's `Verifier` from its own copy of core's declarations. Build first (`./dev run build`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const fixture = join(import.meta.dirname, 'fixtures/dual-module');
const dist = join(import.meta.dirname, '../dist');

/** Every diagnostic of the fixture project, one formatted line each (empty when it type-checks). */
function diagnostics(): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(fixture, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (config === undefined) throw new Error('the fixture tsconfig.json cannot be read');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  return ts.formatDiagnostics(ts.getPreEmitDiagnostics(program), {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => fixture,
    getNewLine: () => '\n',
  });
}

describe('@gatehouse/fastify imported from .mts and .cts files', () => {
  it('type-checks with skipLibCheck false, against the built declarations', () => {
    for (const file of ['index.d.ts', 'index.d.cts'])
      expect(existsSync(join(dist, file)), `dist/${file} (build the package first)`).toBe(true);
    expect(diagnostics()).toBe('');
  }, 60_000);
});
