/**
 * config/ is a leaf (issue #32): the settings — types, defaults, schema, parsing — import nothing of the
 * issuer outside `src/config/`, `src/errors.ts` and `src/internal/`, type-only imports included, and
 * neither do the files of errors.ts and internal/ they reach; npm packages and Node built-ins are fine.
 * Every module specifier is read with the TypeScript compiler: import and export declarations,
 * `import x = require()`, `import('…')` types and calls, `require('…')` and `/// <reference path>`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const CONFIG = join(SRC, 'config');

/** Every module specifier `text` names, in order. */
function specifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = source.referencedFiles.map((reference) => reference.fileName);
  const literal = (node: ts.Node | undefined) => {
    if (node !== undefined && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      literal(node.moduleReference.expression);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    )
      literal(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The source file a relative specifier names (`./x.js` → `x.ts`, `./dir` → `dir/index.ts`). */
function target(from: string, specifier: string): string {
  const path = resolve(dirname(from), specifier);
  if (/\.[cm]?js$/.test(path)) return path.replace(/\.([cm]?)js$/, '.$1ts');
  return /\.[cm]?ts$/.test(path) ? path : join(path, 'index.ts');
}

const allowed = (file: string) =>
  file === join(SRC, 'errors.ts') ||
  [CONFIG, join(SRC, 'internal')].some((folder) => file.startsWith(folder + sep));

/** An npm package or a Node built-in, never a path, a subpath import (`#…`) or this package itself. */
const external = (specifier: string) =>
  !/^[./#]/.test(specifier) && !specifier.startsWith('@gatehouse/issuer') && !/^[a-z]:/i.test(specifier);

/**
 * Each import that leaves the leaf, as `file imports 'specifier'` (with the path from config/ when it is
 * reached through errors.ts or internal/). `read` gives a file's text.
 */
function leaks(entries: readonly string[], read: (file: string) => string): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const queue = entries.map((file) => ({ file, via: [] as string[] }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { file, via } = next;
    if (seen.has(file)) continue;
    seen.add(file);
    const name = relative(SRC, file);
    for (const specifier of specifiers(file, read(file))) {
      if (!specifier.startsWith('.')) {
        if (!external(specifier)) found.push(`${[...via, name].join(' → ')} imports '${specifier}'`);
        continue;
      }
      const reached = target(file, specifier);
      if (allowed(reached)) queue.push({ file: reached, via: [...via, name] });
      else found.push(`${[...via, name].join(' → ')} imports '${specifier}'`);
    }
  }
  return found;
}

const configFiles = (readdirSync(CONFIG, { recursive: true }) as string[])
  .filter((name) => /\.[cm]?ts$/.test(name))
  .map((name) => join(CONFIG, name));

describe('config/ is a leaf', () => {
  it('imports nothing outside config/, errors.ts, internal/ and npm packages', () => {
    expect(configFiles.length).toBeGreaterThan(5);
    expect(leaks(configFiles, (file) => readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('the check sees every kind of import, type-only ones included, and names the file and the import', () => {
    const files: Record<string, string> = {
      [join(CONFIG, 'a.ts')]: [
        "/// <reference path='../keys.ts' />",
        "import { DEFAULTS } from './defaults.js';",
        "import type { Store } from '../storage/store.js';",
        "export { x } from '../grants/index.js';",
        "export * from './b.js';",
        "import fs = require('../cli/io.js');",
        "type K = import('../keys.js').KeySet;",
        "const m = await import('../oidc');",
        "const r = require('../server.js');",
        "import { z } from 'zod';",
        "import { isIP } from 'node:net';",
        "import { ConfigError } from '../errors.js';",
        "import { ipaddr } from '../internal/ip.js';",
        "import self from '@gatehouse/issuer';",
        "import hash from '#internal';",
      ].join('\n'),
      [join(CONFIG, 'b.ts')]: "export const b = 1;\nimport './c/index.js';",
      [join(CONFIG, 'c', 'index.ts')]: 'export {};',
      [join(CONFIG, 'defaults.ts')]: 'export const DEFAULTS = {};',
      [join(SRC, 'errors.ts')]: "import { errors } from 'oidc-provider';",
      [join(SRC, 'internal', 'ip.ts')]:
        "import type { Logger } from 'pino';\nimport '../webhooks/targets.js';",
    };
    expect(leaks([join(CONFIG, 'a.ts')], (file) => files[file] ?? '')).toEqual([
      "config/a.ts imports '../keys.ts'",
      "config/a.ts imports '../storage/store.js'",
      "config/a.ts imports '../grants/index.js'",
      "config/a.ts imports '../cli/io.js'",
      "config/a.ts imports '../keys.js'",
      "config/a.ts imports '../oidc'",
      "config/a.ts imports '../server.js'",
      "config/a.ts imports '@gatehouse/issuer'",
      "config/a.ts imports '#internal'",
      "config/a.ts → internal/ip.ts imports '../webhooks/targets.js'",
    ]);
  });
});
