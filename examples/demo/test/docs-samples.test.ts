/**
 * Every code sample in the docs is exercised: each fenced block is preceded by a marker that says how.
 *
 * - `<!-- sample: path/to/file -->`: the block is code of that file (a test, a script a test runs, or an
 *   example), which the test suite runs. Every line of the block must be a line of the file, in the same
 *   order (whitespace collapsed), so a test may wrap a sample in a function; an import may name more
 *   than the sample's; a line that is only `…` (or a `// …` or `# …` comment) stands for code left out. Shell blocks are compared command by command (comments
 *   dropped, `\` continuations joined), in any order.
 * - `<!-- install -->`: `pnpm add` / `npm install` lines; every package they name must be one of the
 *   workspace's packages or dependencies.
 * - `<!-- output -->`: not code but what something prints or answers (a terminal, an HTTP response);
 *   only for blocks without a language, or `json`, `http`, `text`.
 * - `<!-- diagram -->`: a Mermaid diagram.
 *
 * docs/security.md and docs/performance.md hold no code; docs/core.md's defaults table has its own test
 * (test/docs.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

/** The pages checked here. */
export const PAGES = [
  'README.md',
  'docs/README.md',
  'docs/getting-started.md',
  'docs/adapters.md',
  'docs/scopes-and-roles.md',
  'docs/audit-logs.md',
  'docs/testing.md',
  'docs/issuer.md',
  'docs/troubleshooting.md',
  'docs/management-api.md',
  'docs/impersonation.md',
  'docs/client.md',
  'docs/core.md',
  'docs/dpop.md',
  'docs/console.md',
  'docs/runtimes.md',
  'docs/step-up.md',
  'docs/interop.md',
  'docs/observability.md',
];

/** One fenced block and the marker before it. */
export interface Fence {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly marker:
    | { kind: 'sample'; path: string }
    | { kind: 'output' }
    | { kind: 'diagram' }
    | { kind: 'install' }
    | undefined;
}

/** Find the fenced blocks of a Markdown text (top-level ``` fences only). */
export function fences(page: string, text: string): Fence[] {
  const lines = text.split('\n');
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([\w-]*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    if (end === -1) throw new Error(`${page}:${i + 1}: unclosed code fence`);
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const comment =
      before >= 0
        ? /^<!--\s*(sample:\s*(\S+)|output|diagram|install)\s*-->$/.exec(lines[before]!.trim())
        : null;
    const marker =
      comment === null
        ? undefined
        : comment[2] !== undefined
          ? { kind: 'sample' as const, path: comment[2] }
          : { kind: comment[1] as 'output' | 'diagram' | 'install' };
    found.push({ page, line: i + 1, lang: open[1]!, code: lines.slice(i + 1, end).join('\n'), marker });
    i = end;
  }
  return found;
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();
const ELISION = /^\s*(?:(?:\/\/|#)\s*….*|…|<!--\s*….*-->)\s*$/;
const SHELL = new Set(['sh', 'bash', 'shell']);
const IMPORT = /^import (type )?(?:([\w$]+)(?:, )?)?(?:\{ ?([^}]*?) ?\})? from (['"][^'"]+['"]);?$/;

/** Whether file line `line` imports from the same module at least what import `piece` does. */
function importsAsMuch(line: string, piece: string): boolean {
  const wanted = IMPORT.exec(piece);
  const have = IMPORT.exec(line);
  if (wanted === null || have === null || wanted[4] !== have[4] || wanted[1] !== have[1]) return false;
  if (wanted[2] !== undefined && wanted[2] !== have[2]) return false;
  const names = (list: string | undefined) =>
    (list ?? '')
      .split(',')
      .map((name) => name.trim().replace(/^type /, ''))
      .filter((name) => name !== '');
  const available = new Set(names(have[3]));
  return names(wanted[3]).every((name) => available.has(name));
}

/** The block's lines to find: non-empty, whitespace-collapsed, without elision lines. */
export function pieces(code: string): string[] {
  return code
    .split('\n')
    .filter((line) => !ELISION.test(line))
    .map(squash)
    .filter((line) => line !== '');
}

/** Shell commands of a block: comments dropped, `\` continuations joined. */
export function commands(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => squash(line.replace(/(^|\s)#(?![!{]).*$/, '')))
    .filter((line) => line !== '' && !ELISION.test(line));
}

/**
 * The first line of `code` that is not a line of `file` in order (whitespace collapsed), or `undefined`
 * when all are. Import lines may be anywhere and may import more than the sample's.
 */
export function firstMissing(file: string, code: string): string | undefined {
  const lines = file.split('\n').map(squash);
  let from = 0;
  for (const piece of pieces(code)) {
    if (IMPORT.test(piece)) {
      if (!lines.some((line) => line === piece || importsAsMuch(line, piece))) return piece;
      continue;
    }
    const at = lines.indexOf(piece, from);
    if (at === -1) return piece;
    from = at + 1;
  }
  return undefined;
}

/** Whether every line of `code` is a line of `file`, in order. */
export function containsInOrder(file: string, code: string): boolean {
  return firstMissing(file, code) === undefined;
}

/** Whether every command of a shell block appears in `file` (as a whole line, or inside a longer one). */
export function containsCommands(file: string, code: string): boolean {
  const lines = commands(file);
  return commands(code).every((command) => lines.some((line) => line.includes(command)));
}

/** Every package name the workspace knows: its own packages and every dependency they declare. */
function knownPackages(): Set<string> {
  const names = new Set<string>();
  for (const dir of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, dir))) {
      const manifest = join(root, dir, entry, 'package.json');
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, Record<string, string>>;
      names.add(json.name as unknown as string);
      for (const field of ['dependencies', 'devDependencies', 'peerDependencies'])
        for (const name of Object.keys(json[field] ?? {})) names.add(name);
    }
  }
  return names;
}

/** Package names of `pnpm add` / `npm install` lines. */
export function installed(code: string): string[] {
  return commands(code).flatMap((command) => {
    const words = command.split(' ');
    const at = words.findIndex((word, i) => i > 0 && ['add', 'install', 'i'].includes(word));
    if (at === -1 || !['pnpm', 'npm', 'yarn'].includes(words[0]!)) return [];
    return words.slice(at + 1).filter((word) => !word.startsWith('-'));
  });
}

const all = PAGES.flatMap((page) => fences(page, readFileSync(join(root, page), 'utf8')));

describe('docs code samples', () => {
  it('finds the pages and their samples', () => {
    expect(all.length).toBeGreaterThan(50);
  });

  it.each(all.map((fence) => [`${fence.page}:${fence.line}`, fence] as const))(
    '%s is exercised',
    (_where, fence) => {
      expect(
        fence.marker,
        'no <!-- sample: … -->, <!-- output --> or <!-- diagram --> marker before the block',
      ).toBeDefined();
      const marker = fence.marker!;
      if (marker.kind === 'diagram') {
        expect(fence.lang).toBe('mermaid');
        return;
      }
      if (marker.kind === 'output') {
        expect(['', 'json', 'http', 'text']).toContain(fence.lang);
        return;
      }
      if (marker.kind === 'install') {
        const names = installed(fence.code);
        expect(names.length).toBeGreaterThan(0);
        const known = knownPackages();
        for (const name of names) expect(known.has(name.replace(/(?<=.)@[^/]*$/, '')), name).toBe(true);
        return;
      }
      const file = join(root, marker.path);
      expect(existsSync(file), `${marker.path} does not exist`).toBe(true);
      const text = readFileSync(file, 'utf8');
      if (SHELL.has(fence.lang)) {
        expect(commands(fence.code).length).toBeGreaterThan(0);
        expect(containsCommands(text, fence.code), `a command of the block is not in ${marker.path}`).toBe(
          true,
        );
        return;
      }
      expect(pieces(fence.code).length).toBeGreaterThan(0);
      expect(
        firstMissing(text, fence.code),
        `this line of the block is not (in order) in ${marker.path}`,
      ).toBeUndefined();
    },
  );
});

describe('the checker itself', () => {
  it('reads markers, elisions and fences', () => {
    const text = [
      '<!-- sample: a.ts -->',
      '',
      '```ts',
      'const a = 1;',
      '// …',
      'b();',
      '```',
      '```sh',
      'x',
      '```',
    ].join('\n');
    const [first, second] = fences('x.md', text);
    expect(first).toMatchObject({ line: 3, lang: 'ts', marker: { kind: 'sample', path: 'a.ts' } });
    expect(pieces(first!.code)).toEqual(['const a = 1;', 'b();']);
    expect(second!.marker).toBeUndefined();
  });

  it('wants every line, in order', () => {
    const code = 'const a = 1;\n  b();';
    expect(containsInOrder('function f() {\n  const   a = 1;\n  c();\n b();\n}', code)).toBe(true);
    expect(containsInOrder('b();\nconst a = 1;', code)).toBe(false);
    expect(containsInOrder('const a = 2;\nb();', code)).toBe(false);
    const imports = "import D from 'd';\nimport { b } from 'm';\n// … more\nx();";
    expect(
      containsInOrder("x();\nimport { a, type b, c } from 'm';\nimport D, { e } from 'd';\nx();", imports),
    ).toBe(true);
    expect(containsInOrder("import D from 'd';\nimport { a, c } from 'm';\nx();", imports)).toBe(false);
    expect(containsInOrder("import D from 'd';\nimport { b } from 'n';\nx();", imports)).toBe(false);
    expect(containsInOrder("import E from 'd';\nimport { b } from 'm';\nx();", imports)).toBe(false);
  });

  it('compares shell blocks command by command and reads install lines', () => {
    const block = 'curl -s \\\n  -d a=1 http://x   # a comment\n./dev demo';
    expect(commands(block)).toEqual(['curl -s -d a=1 http://x', './dev demo']);
    expect(containsCommands('./dev demo --once\ncurl -s -d a=1 http://x | jq .', block)).toBe(true);
    expect(containsCommands('./dev demo', block)).toBe(false);
    expect(installed('pnpm add -D @gatehouse/testing msw   # dev only\nnpm install express@5')).toEqual([
      '@gatehouse/testing',
      'msw',
      'express@5',
    ]);
  });
});
