/**
 * The shell walkthroughs of docs/issuer.md and docs/impersonation.md, run as written
 * (walkthrough/walkthrough.sh) against an issuer started with the built CLI, with the page's custom
 * claims module and config file, and the page's orders API (below) built on @gatehouse/core.
 *
 * The docs use http://localhost:3001 (the issuer) and http://localhost:4000 (the API); a .curlrc maps
 * both to free ports, so the commands run unchanged and nothing clashes with a demo that is running.
 * Needs bash, curl, jq and openssl (Debian packages of the same names).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVerifier, isAuthError } from '@gatehouse/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/ports.js';

const SCRIPT = join(import.meta.dirname, 'walkthrough/walkthrough.sh');
const CLI = join(import.meta.dirname, '../../../../packages/issuer/dist/cli.js');

let issuerPort: number;
/** Process group of the running script (its issuer included). */
let group: number | undefined;

/** End whatever the script left running: its trap ends its subshell, not the node process under it. */
function endGroup(): void {
  if (group === undefined) return;
  try {
    process.kill(-group, 'SIGTERM');
  } catch {
    // nothing left in the group
  }
  group = undefined;
}
let api: Server;
let work: string;

/** Node's fetch does not read .curlrc: the API reaches the issuer on its real port. */
const toTestIssuer: typeof fetch = (input, init) =>
  fetch(
    String(input instanceof Request ? input.url : input).replace(
      'http://localhost:3001',
      `http://127.0.0.1:${issuerPort}`,
    ),
    init,
  );

/** The orders API of docs/issuer.md (step 6) and docs/impersonation.md (step 3). */
function ordersApi(): Server {
  const verifier = createVerifier({
    issuer: 'http://localhost:3001/oidc',
    audience: 'https://orders.example.com',
    strict: true, // RFC 9068 profile: Gatehouse's issuer always sends typ at+jwt
    fetch: toTestIssuer,
  });

  const api = createServer(async (req, res) => {
    try {
      const auth = await verifier.authenticate(req, { scopes: 'read:orders' });
      auth.subject; // 'usr_alice…' — whose data to show
      auth.actor; // { sub: 'usr_engineer…' } — who really acted (undefined without act)
      auth.delegated; // true
      if (req.url === '/payouts') {
        // A route that must never be used under impersonation:
        await verifier.authenticate(req, { allowDelegation: false }); // 403 access_denied when act is present
      }
      res.end(JSON.stringify({ orders: [], user: auth.subject, actor: auth.actor?.sub }));
    } catch (err) {
      if (!isAuthError(err)) throw err;
      res.writeHead(err.status, err.headers).end(JSON.stringify(err.toJSON()));
    }
  });
  return api;
}

beforeAll(async () => {
  const missing = ['bash', 'curl', 'jq', 'openssl'].filter(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
  );
  if (missing.length > 0)
    throw new Error(
      `the docs walkthrough needs ${missing.join(', ')}: install them (apt-get install ${missing.join(' ')})`,
    );
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the packages first (pnpm build)`);
  issuerPort = await freePort();
  api = ordersApi();
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiPort = (api.address() as { port: number }).port;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-walkthrough-'));
  writeFileSync(
    join(work, '.curlrc'),
    `connect-to = localhost:3001:127.0.0.1:${issuerPort}\nconnect-to = localhost:4000:127.0.0.1:${apiPort}\n`,
  );
});

afterAll(async () => {
  endGroup();
  api?.closeAllConnections();
  await new Promise((resolve) => api?.close(resolve));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the docs’ shell walkthroughs', () => {
  it('run as written: an issuer from nothing, a protected API, impersonation, audit trail, PATs', async () => {
    const child = spawn('bash', [SCRIPT], {
      detached: true, // a process group of its own: the issuer it starts is ended with it below
      env: {
        ...process.env,
        CURL_HOME: work,
        ISSUER_PORT: String(issuerPort),
        CLI,
        NODE: process.execPath,
        WORK: work,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    group = child.pid;
    const code = await new Promise((resolve) => child.once('exit', resolve));
    endGroup();
    expect(output, output).toContain('walkthrough complete');
    expect(code).toBe(0);
    expect(output).not.toContain('not ok');
    expect(output.match(/^ok - /gm)?.length).toBe(21);
  }, 60_000);
});
