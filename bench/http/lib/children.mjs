/**
 * Child processes of the interleaved benchmarks (servers under test and the load generator), each in its
 * own process group so that stopping one stops whatever it started (a package manager's `bin` wrapper
 * around Bun, say). None outlives the benchmark:
 *
 * - stop() signals the whole group (SIGTERM, then SIGKILL);
 * - on exit, and on SIGINT / SIGTERM / SIGHUP (Ctrl-C does not reach a detached group by itself), every
 *   group still running is killed;
 * - each child gets a stdin pipe this process never closes: children exit when it reaches end of file,
 *   which also happens when this process is killed outright (SIGKILL), so nothing is left behind then
 *   either (exit-with-parent.mjs).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { canPin } from './process.mjs';

const running = new Set();

const signalGroup = (child, signal) => {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
};

process.once('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL');
});
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}: stopping ${running.size} child process group(s)\n`);
    process.exit(code); // the exit handler kills the groups
  });
}

/**
 * Start `exe args` (pinned to `core` when possible) in a process group of its own. stdin is a pipe kept
 * open (write to it with `child.stdin.write`), stdout a pipe, stderr inherited.
 *
 * @param {number} core
 * @param {string} exe
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} [env]
 */
export function spawnGroup(core, exe, args, env = process.env) {
  const [cmd, argv] = canPin ? ['taskset', ['-c', String(core), exe, ...args]] : [exe, args];
  const child = spawn(cmd, argv, { stdio: ['pipe', 'pipe', 'inherit'], env, detached: true });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // A child that exits first must not take this process down with EPIPE.
  child.stdin.on('error', () => {});
  return child;
}

/** Stop a child started by {@link spawnGroup} and everything in its group (SIGTERM, SIGKILL after 5 s). */
export async function stopGroup(child) {
  const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined;
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  signalGroup(child, 'SIGKILL'); // whatever it started and left
  running.delete(child);
}

/**
 * The first stdout line of `child` matching `pattern` (its match), or a rejection when it exits first
 * or stays silent for `timeoutMs`.
 */
export function waitForLine(child, pattern, what, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const done = (error, match) => {
      clearTimeout(timer);
      child.off('exit', exited);
      lines.close();
      child.stdout.resume(); // keep draining whatever else it prints
      if (error) reject(error);
      else resolve(match);
    };
    const exited = (code, signal) =>
      done(new Error(`${what} exited (${code ?? signal}) before it was ready`));
    const onLine = (line) => {
      const match = pattern.exec(line);
      if (match) done(undefined, match);
    };
    const timer = setTimeout(() => done(new Error(`${what}: not ready within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', exited);
    lines.on('line', onLine);
  });
}
