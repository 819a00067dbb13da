import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleOptions, clientBundlePath, createConsoleHandler, pageConfig } from '../src/app.ts';

const OPTIONS: ConsoleOptions = {
  origin: 'http://127.0.0.1:4200',
  endpoint: 'http://127.0.0.1:3001',
  clientId: 'support-console',
  backend: { resource: 'https://support-backend.gatehouse.test', url: 'http://127.0.0.1:4100' },
  orders: {
    resource: 'https://orders.gatehouse.test',
    url: 'http://127.0.0.1:4001',
    scopes: ['read:orders'],
  },
  directory: { usr_alice: 'alice' },
  defaults: { userId: 'usr_alice', ticketId: 'SUP-1234' },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer(createConsoleHandler(OPTIONS));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('the console server', () => {
  it.each(['/', '/callback'])('serves the page at %s with a strict Content-Security-Policy', async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/console.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*src=)[^>]*>/); // no inline script
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(
      "connect-src 'self' http://127.0.0.1:3001 http://127.0.0.1:4100 http://127.0.0.1:4001",
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves the browser bundle of @gatehouse/client and the page scripts', async () => {
    const bundle = await fetch(`${base}/gatehouse-client.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).toBe(readFileSync(clientBundlePath(), 'utf8'));
    for (const path of ['/console.js', '/impersonate.js', '/messages.js', '/console.css']) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(200);
    }
  });

  it('serves the page configuration: the SPA client, both resources, the scopes, nothing secret', async () => {
    const config = (await (await fetch(`${base}/config.json`)).json()) as ReturnType<typeof pageConfig>;
    expect(config).toEqual(JSON.parse(JSON.stringify(pageConfig(OPTIONS))));
    expect(config.client).toEqual({
      endpoint: 'http://127.0.0.1:3001',
      allowInsecureRequests: true,
      clientId: 'support-console',
      redirectUri: 'http://127.0.0.1:4200/callback',
      postLogoutRedirectUri: 'http://127.0.0.1:4200/',
      resources: ['https://orders.gatehouse.test', 'https://support-backend.gatehouse.test'],
      scopes: ['impersonate:users', 'read:orders'],
    });
    // The page shows the impersonation form to users whose backend token carries this scope.
    expect(config.impersonation).toEqual({ scope: 'impersonate:users' });
    expect(JSON.stringify(config)).not.toMatch(/secret/i);
    const other = pageConfig({ ...OPTIONS, impersonationScope: 'support:act' });
    expect(other.impersonation.scope).toBe('support:act');
    expect(other.client.scopes).toEqual(['support:act', 'read:orders']);
  });

  it('labels every input of the page, and styles it for light and dark, phone and desktop', async () => {
    const html = await (await fetch(`${base}/`)).text();
    const inputs = [...html.matchAll(/<input id="([^"]+)"/g)].map((match) => match[1]);
    expect(inputs).toEqual(['user-id', 'reason', 'ticket-id']);
    for (const id of inputs) expect(html).toContain(`<label for="${id}">`);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    const css = await (await fetch(`${base}/console.css`)).text();
    expect(css).toContain('@media (prefers-color-scheme: dark)');
    expect(css).toContain(':focus-visible');
    expect(css).toMatch(/@media \(max-width: \d+px\)/);
  });

  it.each(['/../package.json', '/%2e%2e/package.json', '/public/index.html', '/src/app.ts', '/nope'])(
    'answers 404 for %s',
    async (path) => {
      expect((await fetch(`${base}${path}`)).status).toBe(404);
    },
  );

  it('answers /favicon.ico with 204 (no icon, no error in the browser console)', async () => {
    expect((await fetch(`${base}/favicon.ico`)).status).toBe(204);
  });

  it('answers HEAD without a body and 405 for other methods', async () => {
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${base}/`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('uses plain HTTP towards the issuer only when the issuer is http:', () => {
    expect(pageConfig({ ...OPTIONS, endpoint: 'https://id.example.com' }).client.allowInsecureRequests).toBe(
      false,
    );
  });
});
