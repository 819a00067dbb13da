/**
 * A single-page app for the browser test: a loopback server with a plain HTML page that loads the
 * client's browser build, as an ES module (`/client.js`) or a classic script (`/client.global.js`),
 * both built by tsup with the package's own browser configuration.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Options } from 'tsup';
import configs from '../../tsup.config.js';

const packageDir = join(import.meta.dirname, '../..');

/** Build the browser bundles exactly as `pnpm run build` does, into a temporary directory. */
export async function buildBrowserBundles(): Promise<{ esm: string; iife: string }> {
  const browser = (configs as Options[]).find((config) => config.platform === 'browser');
  if (browser === undefined) throw new Error('tsup.config.ts has no browser build');
  const outDir = await mkdtemp(join(tmpdir(), 'gatehouse-client-'));
  try {
    // Entries are relative to the package; resolve them so the build works from any working directory.
    const entry = Object.fromEntries(
      Object.entries(browser.entry as Record<string, string>).map(([name, path]) => [
        name,
        join(packageDir, path),
      ]),
    );
    await build({ ...browser, entry, outDir, sourcemap: false, silent: true, config: false });
    return {
      esm: await readFile(join(outDir, 'index.js'), 'utf8'),
      iife: await readFile(join(outDir, 'index.global.js'), 'utf8'),
    };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** The app page: configuration comes from /config.json; the client is `window.gatehouse`. */
const APP_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Support console</title></head>
<body>
<p id="status">loading</p>
<button id="sign-in" type="button">Sign in</button>
<button id="sign-out" type="button">Sign out</button>
<script type="module">
import { createClient, isClientError } from '/client.js';
const status = document.getElementById('status');
const config = await (await fetch('/config.json')).json();
const client = createClient({ ...config, storage: 'sessionStorage' });
window.gatehouse = client;
document.getElementById('sign-in').onclick = () => client.signIn();
document.getElementById('sign-out').onclick = () => client.signOut();
try {
  if (location.pathname === '/callback') {
    const claims = await client.handleSignInCallback();
    history.replaceState(null, '', '/');
    status.textContent = 'signed-in:' + claims.sub;
  } else {
    status.textContent = (await client.isAuthenticated()) ? 'signed-in:' + (await client.getIdTokenClaims()).sub : 'signed-out';
  }
} catch (err) {
  status.textContent = 'error:' + (isClientError(err) ? err.reason + ':' + err.error : String(err));
}
</script>
</body>
</html>`;

/** A page that loads the classic-script build and exposes what it finds. */
const GLOBAL_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Global build</title><script src="/client.global.js"></script></head>
<body><p id="status">loaded</p></body>
</html>`;

export interface PageServer {
  readonly origin: string;
  /** Set before the page is opened. */
  config: Record<string, unknown>;
  close(): Promise<void>;
}

/** Serve the app on 127.0.0.1. */
export async function startPageServer(bundles: { esm: string; iife: string }): Promise<PageServer> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const page: PageServer = {
    origin,
    config: {},
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    const send = (type: string, body: string) =>
      res.writeHead(200, { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store' }).end(body);
    if (path === '/' || path === '/callback' || path === '/signed-out') send('text/html', APP_PAGE);
    else if (path === '/global.html') send('text/html', GLOBAL_PAGE);
    else if (path === '/client.js') send('text/javascript', bundles.esm);
    else if (path === '/client.global.js') send('text/javascript', bundles.iife);
    else if (path === '/config.json') send('application/json', JSON.stringify(page.config));
    else res.writeHead(404).end();
  });
  return page;
}
