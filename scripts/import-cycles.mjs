#!/usr/bin/env node
/**
 * Fail on any import cycle between the source files of one package: every `src/` folder of the
 * workspace's packages and examples (`packages/*`, the admin console's `packages/console` among them,
 * and `examples/*`), or the folders named on the command line.
 *
 * Every relative import counts: `import`, `import type`, `export … from`, `import()` and
 * `import x = require()`. A type-only cycle is still a cycle of concerns. Specifiers are resolved as
 * TypeScript resolves them in this repo (`./a.js` → `a.ts` or `a.tsx`, `./dir` → `dir/index.ts`);
 * imports of other packages, or of files outside the folder, are not followed.
 *
 * Prints each cycle as a path (`import cycle in packages/x/src: a.ts → b.ts → a.ts`) and exits 1,
 * or exits 0 when there is none: `node scripts/import-cycles.mjs [folder …]`. Run by `pnpm run lint`
 * (so by `./dev check`).
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = /\.(ts|tsx|mts|cts)$/;
const ARROW = ' → ';

/** The `src/` folders checked when none is named, absolute. */
export function defaultFolders() {
  const folders = [];
  for (const group of ['packages', 'examples']) {
    for (const name of readdirSync(join(root, group)).sort()) {
      folders.push(join(root, group, name, 'src'));
    }
  }
  return folders.filter((folder) => existsSync(folder) && statSync(folder).isDirectory());
}

/** Every source file under a folder (declaration files, `node_modules` and `dist` left out). */
function sourceFiles(folder) {
  const files = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') files.push(...sourceFiles(path));
    } else if (SOURCE.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name)) {
      files.push(path);
    }
  }
  return files;
}

/** The file a relative specifier names, or undefined. */
function resolveSpecifier(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs|cjs|ts|tsx|mts|cts)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    `${stem}.cts`,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ];
  return candidates.find((candidate) => SOURCE.test(candidate) && existsSync(candidate));
}

/** file → the files of the same folder it imports. */
function importGraph(folder) {
  const files = sourceFiles(folder);
  const inFolder = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveSpecifier(file, fileName);
      if (target && inFolder.has(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components of the graph (Tarjan), each sorted. */
function components(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node), index.get(target)));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest cycle through `start` inside its component, as a list of files ending at `start`. */
function shortestCycle(graph, component, start) {
  const members = new Set(component);
  const previous = new Map();
  const queue = [start];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head];
    for (const target of graph.get(node)) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return undefined;
}

/**
 * The import cycles of one folder: for each group of files that import one another, the shortest
 * cycle through each of its files, each written once, starting from its first file in sort order;
 * sorted.
 */
export function importCycles(folder) {
  const graph = importGraph(folder);
  const cycles = new Map();
  for (const component of components(graph)) {
    const selfLoop = component.length === 1 && graph.get(component[0]).includes(component[0]);
    if (component.length === 1 && !selfLoop) continue;
    for (const start of component) {
      const cycle = shortestCycle(graph, component, start);
      if (!cycle) continue;
      const ring = cycle.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]);
      const rotated = [...ring.slice(first), ...ring.slice(0, first)];
      const path = [...rotated, rotated[0]].map((file) => relative(folder, file).split('\\').join('/'));
      cycles.set(path.join(ARROW), path);
    }
  }
  return [...cycles.keys()].sort().map((key) => cycles.get(key));
}

function main(argv) {
  const folders = argv.length > 0 ? argv.map((folder) => resolve(folder)) : defaultFolders();
  let count = 0;
  for (const folder of folders) {
    const name = relative(process.cwd(), folder).split('\\').join('/') || '.';
    for (const cycle of importCycles(folder)) {
      count += 1;
      console.error(`import cycle in ${name}: ${cycle.join(ARROW)}`);
    }
  }
  if (count > 0) {
    console.error(
      `${count} import cycle${count === 1 ? '' : 's'} found: move the concern two files share into a file of its own`,
    );
    process.exit(1);
  }
  console.log(`no import cycle in ${folders.length} source folder${folders.length === 1 ? '' : 's'}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
