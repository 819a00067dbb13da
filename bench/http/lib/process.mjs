/**
 * Starting and stopping a server under test, and a load generator, each in its own process pinned to
 * one core (taskset) when the machine has two. Shared by run.mjs and dpop.mjs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;

/** Whether processes can be pinned to cores 0 and 1. */
export const canPin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 && cpus().length >= 2;

/** `[command, args]` running `node args` on `core` when pinning is possible. */
export const pinned = (core, args) =>
  canPin ? ['taskset', ['-c', String(core), node, ...args]] : [node, args];

/** Start server.mjs with `spec`; resolves to its port and process once it prints READY. */
export function startServer(spec) {
  const [cmd, args] = pinned(0, [join(here, 'server.mjs')]);
  const child = spawn(cmd, args, {
    env: { ...process.env, NODE_ENV: 'production', BENCH_SERVER: JSON.stringify(spec) },
    // stdin: a pipe left open, so the server exits when this process is gone (server.mjs).
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('server did not start within 20 s')), 20_000);
    const fail = (error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(
        new Error(`${error.message}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`),
      );
    };
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const match = /READY (\d+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ port: Number(match[1]), child });
      }
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
}

/** Stop a server started by {@link startServer} (SIGTERM, then SIGKILL after 3 s). */
export async function stopServer(child) {
  if (child.exitCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

/** Run a load script (pinned to core 1) with `input` as JSON on stdin; resolves to its JSON output. */
export function runLoad(script, input, limitMs) {
  const [cmd, args] = pinned(1, [join(here, script)]);
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  child.stdin.end(JSON.stringify(input));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out));
      else
        reject(
          new Error(`load generator exited with ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}
