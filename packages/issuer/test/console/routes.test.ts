/**
 * `mountConsole()` on a real loopback server: the page's asset URLs follow the base path (an issuer
 * under `/auth` serves its console at `/auth/console`), paths outside `/console` go on to the next
 * handler, and an issuer whose console was not built says so (503 and one warning) instead of failing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConsoleAssets } from '../../src/console/assets.js';
import { CONSOLE_CSP, mountConsole } from '../../src/console/routes.js';
import { resolveConfig } from '../../src/issuer-config.js';
import { createLogger } from '../../src/logger.js';
import { LogCapture } from '../helpers/issuer.js';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Serve `mountConsole` for an issuer at `http://127.0.0.1/auth`; unknown paths answer 418. */
async function serve(load: typeof loadConsoleAssets) {
  const config = resolveConfig({ baseUrl: 'http://127.0.0.1:1/auth' });
  const logs = new LogCapture();
  const handler = mountConsole(
    { config, log: createLogger({ ...config, log: { ...config.log, destination: logs } }) },
    async (_req, res) => {
      res.writeHead(418).end();
      return true;
    },
    load,
  );
  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname.slice('/auth'.length) || '/';
    void handler(req, res, path);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`, logs };
}

describe('mountConsole', () => {
  it('serves the built page with asset URLs under the base path, and hashed assets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-console-assets-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<script type="module" src="./assets/index-abc.js"></script>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'export {};');
    writeFileSync(join(dir, 'assets', 'notes.txt'), 'not served');
    const { url } = await serve((path) => loadConsoleAssets(path, [join(tmpdir(), 'nowhere'), dir]));

    const page = await fetch(`${url}/console/users/usr_1`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<script type="module" src="/auth/console/assets/index-abc.js"></script>');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const asset = await fetch(`${url}/console/assets/index-abc.js`);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${url}/console/assets/notes.txt`)).status).toBe(404);
    expect((await fetch(`${url}/console`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/auth/console/',
    );
    expect(await (await fetch(`${url}/console/config.json`)).json()).toMatchObject({
      redirectUri: 'http://127.0.0.1:1/auth/console/callback',
      managementApi: 'http://127.0.0.1:1/auth/api',
      basePath: '/auth/console',
    });
    expect((await fetch(`${url}/consoles`)).status).toBe(418);
    expect((await fetch(`${url}/health`)).status).toBe(418);
  });

  it('without a build: 503 at /console with a readable message, and one warning at start', async () => {
    const { url, logs } = await serve(() => undefined);
    const res = await fetch(`${url}/console/`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ code: 'unavailable', message: 'The admin console was not built' });
    expect(logs.lines.filter((line) => line.includes('console.not_built'))).toHaveLength(1);
  });
});
