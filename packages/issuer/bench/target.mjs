/**
 * A bench target: bench/server.mjs in a process of its own (on core 0 when `pin`), and the
 * client-credentials request the issuer benchmarks load it with (issuer.bench.mjs, metrics.bench.mjs,
 * tracing.bench.mjs).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = join(dirname(fileURLToPath(import.meta.url)), 'server.mjs');

/**
 * Start server.mjs in `mode` with `env` added to this process's environment; resolves to the JSON
 * line it prints, its `pid`, and `stop()` (SIGTERM, resolves once it has exited).
 */
export async function startTarget({ mode = 'gatehouse', env = {}, pin = false, label = mode } = {}) {
  const [cmd, args] = pin
    ? ['taskset', ['-c', '0', process.execPath, server, mode]]
    : [process.execPath, [server, mode]];
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  let buffer = '';
  const info = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]));
    });
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
  return {
    ...info,
    pid: child.pid,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A client-credentials token request to `target` (`params` added to the form); each call resolves to
 * whether a token came back.
 */
export function tokenRequest(target, params = {}) {
  const authorization = `Basic ${Buffer.from(`${target.clientId}:${target.clientSecret}`).toString('base64')}`;
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    resource: target.resource,
    ...params,
  }).toString();
  return async () => {
    const res = await fetch(`${target.url}/oidc/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const json = await res.json();
    return res.status === 200 && typeof json.access_token === 'string';
  };
}
