/**
 * The binary on a Node.js older than it needs (issue #29 item 6): one line naming the version it needs
 * and the one it found, exit code 1, no stack trace, nothing created — checked with the built CLI under
 * a Node that reports an old version (a preload changes `process.versions.node`), and under the
 * machine's own older Node when there is one (Debian's Node 20 here).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINIMUM_NODE, tooOld } from '../../src/cli/node-version.js';
import { ensureBuilt } from '../helpers/instances.js';

const CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
const FAKE_OLD = `data:text/javascript,Object.defineProperty(process, "versions", { value: { ...process.versions, node: "20.20.2" } });`;
let dir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-old-node-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The machine's `node` on PATH outside .tools, when it is older than the issuer needs. */
function systemOldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim().slice(1);
      if (tooOld(version) !== undefined) return candidate;
    } catch {}
  }
  return undefined;
}

describe('the Node.js version check', () => {
  it('tooOld() names both versions below the minimum, and nothing at or above it', () => {
    expect(tooOld('20.20.2')).toBe(
      `gatehouse-issuer needs Node.js ${MINIMUM_NODE} or later; this is Node.js 20.20.2. Install a current Node.js (https://nodejs.org) and run it again.`,
    );
    expect(tooOld('22.17.1')).toMatch(/this is Node\.js 22\.17\.1/);
    expect(tooOld('22.18.0')).toBeUndefined();
    expect(tooOld('22.18.1')).toBeUndefined();
    expect(tooOld('24.0.0')).toBeUndefined();
  });

  it('the built binary says it in one line and exits 1, creating nothing', async () => {
    const runs: [string, string[]][] = [[process.execPath, ['--import', FAKE_OLD, CLI, 'start']]];
    const old = systemOldNode();
    if (old !== undefined) runs.push([old, [CLI, 'start']]);
    for (const [node, args] of runs) {
      const failure = await promisify(execFile)(node, args, { cwd: dir, encoding: 'utf8' }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure, node).toBeDefined();
      expect(failure!.code).toBe(1);
      expect(failure!.stdout).toBe('');
      const lines = failure!.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^gatehouse-issuer needs Node\.js 22\.18\.0 or later; this is Node\.js 20\./);
      expect(failure!.stderr).not.toMatch(/ERR_|\bat \S+:\d+/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
