/**
 * The published tarballs as `pnpm publish` packs them. No published package depends on a private
 * workspace package (they are never on the registry). The issuer's tarball carries the admin console:
 * `dist/console`, the build of the private `@gatehouse/console` that the issuer's build copies there
 * (packages/issuer/scripts/copy-console.mjs). The issuer unpacked from that tarball serves `/console/`
 * and every asset its page names. Needs the packages built (`pnpm build`), as `pnpm test` does first.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const workspaces = ['packages', 'examples'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) })),
);
const issuerDir = join(root, 'packages', 'issuer');
const scratch = mkdtempSync(join(tmpdir(), 'gatehouse-pack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** pnpm, as the test runner was started by it (`npm_execpath`), else from PATH. */
function pnpm(args: readonly string[], cwd: string): string {
  const execPath = process.env.npm_execpath;
  const [file, argv] =
    execPath !== undefined && /pnpm\.c?js$/.test(execPath)
      ? [process.execPath, [execPath, ...args]]
      : ['pnpm', [...args]];
  return execFileSync(file, argv, { cwd, encoding: 'utf8' });
}

/** `pnpm pack` the issuer into the scratch folder and unpack it; resolves to the unpacked package. */
function packIssuer(): { files: string[]; dir: string } {
  const packed = JSON.parse(pnpm(['pack', '--json', '--pack-destination', scratch], issuerDir)) as {
    filename: string;
    files: { path: string }[];
  };
  execFileSync('tar', ['-xzf', packed.filename, '-C', scratch]);
  const dir = join(scratch, 'package');
  // The unpacked issuer finds its dependencies where the workspace installed them.
  symlinkSync(join(issuerDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { files: packed.files.map((file) => file.path), dir };
}

describe('published tarballs', () => {
  it('no published package depends on a private workspace package', () => {
    const internal = new Set(
      workspaces.filter((w) => w.manifest.private === true).map((w) => w.manifest.name),
    );
    expect(internal).toContain('@gatehouse/console');
    const published = workspaces.filter((w) => w.manifest.private !== true);
    expect(published.length).toBeGreaterThan(5);
    for (const { manifest } of published)
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'])
        for (const name of Object.keys(manifest[field] ?? {}))
          expect(internal.has(name), `${manifest.name} ${field}: ${name}`).toBe(false);
  });

  it('the issuer’s carries the admin console, which the unpacked issuer serves', { timeout: 60_000 }, () => {
    const { files, dir } = packIssuer();
    expect(files).toContain('dist/console/index.html');
    const html = readFileSync(join(dir, 'dist/console/index.html'), 'utf8');
    const named = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(named.some((asset) => /^assets\/index-[\w-]+\.js$/.test(asset))).toBe(true);
    expect(named.some((asset) => /^assets\/index-[\w-]+\.css$/.test(asset))).toBe(true);
    for (const asset of named) expect(files).toContain(`dist/console/${asset}`);

    // The unpacked issuer in a process of its own: the statuses of the page and of each asset it names.
    const script = `
      const { createIssuer } = await import(process.argv[1]);
      const issuer = await createIssuer({
        baseUrl: 'http://127.0.0.1:1',
        database: ':memory:',
        log: { level: 'fatal' },
      });
      try {
        const { port } = await issuer.listen(0, '127.0.0.1');
        const base = 'http://127.0.0.1:' + port + '/console/';
        const page = await fetch(base);
        const html = await page.text();
        const assets = [...html.matchAll(/(?:src|href)="\\/console\\/(assets\\/[^"]+)"/g)].map((m) => m[1]);
        const statuses = { page: page.status };
        for (const asset of assets) statuses[asset] = (await fetch(base + asset)).status;
        console.log('statuses ' + JSON.stringify(statuses));
      } finally {
        await issuer.close();
      }`;
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', script, join(dir, 'dist', 'index.js')],
      { cwd: dir, encoding: 'utf8' },
    );
    const line = out.split('\n').find((text) => text.startsWith('statuses '));
    expect(JSON.parse(line!.slice('statuses '.length))).toEqual({
      page: 200,
      ...Object.fromEntries(named.map((asset) => [asset, 200])),
    });
  });
});
