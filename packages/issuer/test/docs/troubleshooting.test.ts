/**
 * docs/troubleshooting.md, checked against the real thing: troubleshooting.sh runs the page's commands
 * with the built CLI (a taken port, a free one, SQLite in a scratch directory, a PostgreSQL schema),
 * and every output block of the page (`<!-- case: name -->` before its `<!-- output -->` marker) must
 * be, line by line and in order, what that case printed (`…` stands for any text; the scratch
 * directory is the page's /home/you/project, the ports its 3001 and 3002). The script's own checks
 * (secrets that work or not) are asserted too. The script runs in its own process group, which is
 * killed afterwards, pass or fail.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssuer } from '../../src/index.js';
import { freshPostgresUrl } from '../helpers/drivers.js';
import { ensureBuilt } from '../helpers/instances.js';
import { freePort } from '../helpers/issuer.js';

const ROOT = join(import.meta.dirname, '../../../..');
const PAGE = readFileSync(join(ROOT, 'docs/troubleshooting.md'), 'utf8');
const SCRIPT = join(import.meta.dirname, 'troubleshooting.sh');
const CLI = join(import.meta.dirname, '../../dist/cli.js');
/** Entries whose message belongs to work not done yet (listed in the page as a placeholder). */
const PENDING: string[] = [];

/** The page's output blocks by case name, and the cases marked pending. */
function documentedCases(): { cases: Map<string, string[]>; pending: string[] } {
  const cases = new Map<string, string[]>();
  const pending: string[] = [];
  const pattern = /<!-- case: ([\w-]+)( \(pending\))? -->\n<!-- output -->\n```\w*\n([\s\S]*?)\n```/g;
  for (const [, name, isPending, body] of PAGE.matchAll(pattern)) {
    if (isPending) pending.push(name!);
    else cases.set(name!, body!.split('\n'));
  }
  return { cases, pending };
}

/** A documented line as a pattern: `…` is any text. */
const linePattern = (line: string) =>
  new RegExp(
    `^${line
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+?')}$`,
  );

/** The first documented line not found (in order) in `printed`, or undefined. */
function firstUnmatched(documented: readonly string[], printed: readonly string[]): string | undefined {
  let from = 0;
  for (const line of documented.filter((l) => l.trim() !== '')) {
    const pattern = linePattern(line);
    const at = printed.findIndex((candidate, i) => i >= from && pattern.test(candidate));
    if (at === -1) return line;
    from = at + 1;
  }
  return undefined;
}

let work: string;
let taken: Server;
let child: ChildProcess | undefined;
/** What each case of the script printed, normalized to the page's directory and ports. */
const printed = new Map<string, string[]>();
let output = '';

beforeAll(async () => {
  ensureBuilt();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'gatehouse-troubleshooting-')));
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const takenPort = (taken.address() as { port: number }).port;
  const freePortNumber = await freePort();
  child = spawn('bash', [SCRIPT], {
    detached: true, // its own process group: killed as a whole afterwards
    env: {
      ...process.env,
      CLI,
      NODE: process.execPath,
      WORK: work,
      TAKEN_PORT: String(takenPort),
      FREE_PORT: String(freePortNumber),
      DATABASE_URL: await freshPostgresUrl(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child!.once('exit', resolve));
  expect(code, output).toBe(0);
  let current = '';
  for (const raw of output.split('\n')) {
    const line = raw
      .replaceAll(work, '/home/you/project')
      .replaceAll(`:${takenPort}`, ':3001')
      .replaceAll(`port ${takenPort}`, 'port 3001')
      .replaceAll(`:${freePortNumber}`, ':3002');
    const heading = /^=== (.+)$/.exec(line);
    if (heading) {
      current = heading[1]!;
      printed.set(current, []);
    } else printed.get(current)?.push(line);
  }
}, 240_000);

afterAll(async () => {
  if (child?.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group has exited already
    }
  }
  await new Promise((resolve) => taken?.close(resolve));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('docs/troubleshooting.md', () => {
  const { cases, pending } = documentedCases();

  it('has an output block for every case the script runs, and only the known placeholder pending', () => {
    expect(pending).toEqual(PENDING);
    const run = [...printed.keys()].filter((name) => name !== 'done' && !name.endsWith('-postgres'));
    for (const name of run) expect(cases.has(name), `no output block for ${name}`).toBe(true);
    expect(printed.has('done'), output).toBe(true);
  });

  it.each([...documentedCases().cases.keys()].filter((name) => name !== 'create-issuer-unknown-option'))(
    '%s: the page shows what the CLI prints',
    (name) => {
      const lines = printed.get(name);
      expect(lines, `the script has no case ${name}`).toBeDefined();
      expect(firstUnmatched(cases.get(name)!, lines!), lines!.join('\n')).toBeUndefined();
    },
  );

  it('createIssuer: the page shows the ConfigError of a mistyped option', async () => {
    const err = await createIssuer({ baseURL: 'http://localhost:3001' } as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(firstUnmatched(cases.get('create-issuer-unknown-option')!, [String(err)])).toBeUndefined();
  });

  it('the fixes work: exit codes, nothing created, secrets that work and secrets that stopped', () => {
    expect(printed.get('port-in-use')).toEqual(expect.arrayContaining(['exit code 1', 'nothing created']));
    expect(printed.get('port-fixed')).toContain('GATEHOUSE_PORT works too');
    expect(printed.get('secret-never-used')).toEqual(
      expect.arrayContaining(['the secret printed first: 401', 'the secret printed now: 200']),
    );
    for (const name of ['reset-secret', 'reset-secret-postgres'])
      expect(printed.get(name), name).toEqual(
        expect.arrayContaining(['the old secret: 401', 'the new secret: 200']),
      );
    for (const name of ['unknown-flag', 'unknown-setting', 'bad-env', 'replaced-setting'])
      expect(printed.get(name), name).toContain('exit code 2');
  });
});
