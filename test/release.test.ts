/**
 * Release tooling: changesets version every published package and never an example or a private
 * package; every package builds through the one tsup preset; pnpm-workspace.yaml names no
 * dependency the lockfile does not hold.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Workspace {
  readonly dir: string;
  readonly name: string;
  readonly private: boolean;
}

const workspaces: Workspace[] = ['packages', 'examples'].flatMap((group) =>
  readdirSync(join(root, group))
    .filter((dir) => existsSync(join(root, group, dir, 'package.json')))
    .map((dir) => {
      const pkg = JSON.parse(read(`${group}/${dir}/package.json`)) as { name: string; private?: boolean };
      return { dir: `${group}/${dir}`, name: pkg.name, private: pkg.private === true };
    }),
);

/** A changesets `ignore` entry as a regular expression (`*` matches within a name). */
const pattern = (glob: string) =>
  new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

describe('changesets', () => {
  const config = JSON.parse(read('.changeset/config.json')) as {
    ignore: string[];
    privatePackages: { version: boolean; tag: boolean };
    updateInternalDependencies: string;
  };
  const ignored = (name: string) => config.ignore.some((glob) => pattern(glob).test(name));

  it('ignores every example and versions no private package', () => {
    expect(config.privatePackages).toEqual({ version: false, tag: false });
    for (const workspace of workspaces.filter((w) => w.dir.startsWith('examples/')))
      expect(ignored(workspace.name), workspace.name).toBe(true);
  });

  it('versions every published package', () => {
    const published = workspaces.filter((w) => !w.private);
    expect(published.length).toBeGreaterThan(5);
    for (const workspace of published) {
      expect(workspace.dir.startsWith('packages/'), workspace.name).toBe(true);
      expect(ignored(workspace.name), workspace.name).toBe(false);
    }
    expect(config.updateInternalDependencies).toBe('patch');
  });

  it('every pending changeset names only published packages', () => {
    const published = new Set(workspaces.filter((w) => !w.private).map((w) => w.name));
    for (const file of readdirSync(join(root, '.changeset')).filter(
      (f) => f.endsWith('.md') && f !== 'README.md',
    )) {
      const front = read(`.changeset/${file}`).split('---')[1] ?? '';
      const names = [...front.matchAll(/^"([^"]+)":\s*(patch|minor|major)$/gm)].map((match) => match[1]!);
      expect(names.length, file).toBeGreaterThan(0);
      for (const name of names) expect(published.has(name), `${file}: ${name}`).toBe(true);
    }
  });
});

describe('builds', () => {
  /**
   * Packages whose build has not been moved onto the preset yet: packages/core was not to be touched
   * on the branch that introduced it. Remove an entry once converted (the test says so).
   */
  const NOT_YET: string[] = [];

  it('every package with a build uses the shared tsup preset', () => {
    const built = workspaces.filter((w) => existsSync(join(root, w.dir, 'tsup.config.ts')));
    expect(built.length).toBeGreaterThan(5);
    for (const workspace of built) {
      const config = read(`${workspace.dir}/tsup.config.ts`);
      const preset = config.includes("from '../../tsup.preset.js'") && /library\(/.test(config);
      expect(
        preset,
        `${workspace.dir}${NOT_YET.includes(workspace.dir) ? ' (remove it from NOT_YET)' : ''}`,
      ).toBe(!NOT_YET.includes(workspace.dir));
    }
  });

  it('pnpm-workspace.yaml lists only dependencies the lockfile holds', () => {
    const workspace = read('pnpm-workspace.yaml');
    const lock = read('pnpm-lock.yaml');
    const listed = (key: string) =>
      (new RegExp(`^${key}:\\n((?:  - .+\\n)+)`, 'm').exec(workspace)?.[1] ?? '')
        .split('\n')
        .map((line) => line.replace(/^ {2}- /, '').trim())
        .filter(Boolean);
    const names = [...listed('onlyBuiltDependencies'), ...listed('ignoredBuiltDependencies')];
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect(lock, name).toMatch(new RegExp(`\\n  '?${name}@`));
  });

  it('every catalog entry of pnpm-workspace.yaml is used by a package.json', () => {
    const block = /^catalog:\n((?: {2}.+\n)+)/m.exec(read('pnpm-workspace.yaml'))?.[1] ?? '';
    const names = block
      .split('\n')
      .map((line) => /^ {2}"?([^":]+)"?:/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    expect(names.length).toBeGreaterThan(3);
    const manifests = ['package.json', ...workspaces.map((w) => `${w.dir}/package.json`)].map(read);
    for (const name of names)
      expect(
        manifests.some((manifest) => manifest.includes(`"${name}": "catalog:"`)),
        name,
      ).toBe(true);
  });
});
