/**
 * docs/interop.md's compatibility table against what the suite runs: each row's version is the version
 * installed (read from the client's own package.json) and pinned exactly in this package's
 * package.json; each row names a suite file that exists and imports that client; every suite file of
 * this package has a row; README.md and docs/README.md link the page.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PACKAGE = join(import.meta.dirname, '..');
const ROOT = join(PACKAGE, '..', '..');
const read = (path: string) => readFileSync(path, 'utf8');

/** One row of the table. */
interface Row {
  readonly client: string;
  readonly version: string;
  readonly cells: readonly string[];
  readonly suite: string;
}

function rows(): Row[] {
  const page = read(join(ROOT, 'docs', 'interop.md'));
  const table = page.slice(page.indexOf('## Compatibility table'));
  return table
    .split('\n')
    .filter((line) => /^\| `[^`]+` \|/.test(line))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim());
      const suite = /\]\(\.\.\/packages\/interop\/test\/([\w.-]+\.test\.ts)\)/.exec(cells.at(-1) ?? '')?.[1];
      return { client: cells[0]!.replaceAll('`', ''), version: cells[1]!, cells, suite: suite ?? '' };
    });
}

const manifest = JSON.parse(read(join(PACKAGE, 'package.json'))) as {
  devDependencies: Record<string, string>;
};

describe('docs/interop.md compatibility table', () => {
  const table = rows();

  it('has a row per client, each with every column filled', () => {
    expect(table.map((row) => row.client)).toEqual([
      'openid-client',
      'oauth4webapi',
      'jose',
      'express-oauth2-jwt-bearer',
      '@fastify/jwt',
      'get-jwks',
      '@auth/express',
      'passport-openidconnect',
      '@logto/node',
      '@logto/browser',
      'oidc-client-ts',
    ]);
    for (const row of table) {
      expect(row.cells, row.client).toHaveLength(6);
      for (const cell of row.cells) expect(cell.length, row.client).toBeGreaterThan(3);
    }
  });

  it.each(table.map((row) => [row.client, row] as const))(
    '%s: the version tested is the one installed and pinned',
    (_name, row) => {
      const installed = JSON.parse(read(join(PACKAGE, 'node_modules', row.client, 'package.json'))) as {
        version: string;
      };
      expect(row.version).toBe(installed.version);
      expect(manifest.devDependencies[row.client]).toBe(installed.version);
    },
  );

  it.each(table.map((row) => [row.client, row] as const))(
    '%s: its suite file exists and imports it',
    (_name, row) => {
      const file = join(PACKAGE, 'test', row.suite);
      expect(existsSync(file), row.suite).toBe(true);
      // A browser client is imported by the page script the suite bundles (test/pages/<name>.ts).
      const pages = [...read(file).matchAll(/bundlePage\('([\w-]+)'\)/g)].map((match) =>
        read(join(PACKAGE, 'test', 'pages', `${match[1]}.ts`)),
      );
      expect([read(file), ...pages].join('\n')).toMatch(
        new RegExp(`from '${row.client.replace('/', '\\/')}'`),
      );
    },
  );

  it('every suite file of the package has a row', () => {
    const suites = readdirSync(join(PACKAGE, 'test')).filter(
      (name) => name.endsWith('.test.ts') && name !== 'compatibility-table.test.ts',
    );
    expect(new Set(table.map((row) => row.suite))).toEqual(new Set(suites));
  });

  it('is linked from README.md and docs/README.md', () => {
    expect(read(join(ROOT, 'README.md'))).toContain('(docs/interop.md)');
    expect(read(join(ROOT, 'docs', 'README.md'))).toContain('(interop.md)');
  });
});
