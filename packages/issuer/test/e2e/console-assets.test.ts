/**
 * The issuer serves the admin console it bundles: started by its CLI (`dist/cli.js start`, SQLite), it
 * prints where the console is, and answers `/console` from `dist/console` — the build of the private
 * `@gatehouse/console` package, copied there by the issuer's build (scripts/copy-console.mjs) — with
 * a strict CSP and no caching for the page, and the content-hashed assets the page names for a year.
 * What the pages do is tested in Chromium by packages/console/test/e2e; the headers against files of
 * the test's own by test/console/routes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIssuer, startCliIssuer } from '../helpers/cli-issuer.js';

let issuer: CliIssuer;

beforeAll(async () => {
  issuer = await startCliIssuer();
}, 120_000);

afterAll(() => issuer?.close());

describe('the console the issuer bundles', () => {
  it('the start banner prints where the console is', () => {
    expect(issuer.instance().stderr()).toContain(`  Admin console:   ${issuer.baseUrl}/console/\n`);
  });

  it('serves the page with a strict CSP and no caching, and hashed assets for a year', async () => {
    const base = issuer.baseUrl;
    const page = await fetch(`${base}/console/users`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const asset = /src="([^"]+\.js)"/.exec(html)![1]!;
    expect(asset).toMatch(/^\/console\/assets\/index-[\w-]+\.js$/);
    const js = await fetch(`${base}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    const style = /href="([^"]+\.css)"/.exec(html)![1]!;
    expect(style).toMatch(/^\/console\/assets\/index-[\w-]+\.css$/);
    const css = await fetch(`${base}${style}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect((await fetch(`${base}/console/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${base}/console`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/console/',
    );
    expect((await fetch(`${base}/console/`, { method: 'POST' })).status).toBe(405);
    expect(await (await fetch(`${base}/console/config.json`)).json()).toEqual({
      endpoint: base,
      clientId: 'gatehouse-console',
      redirectUri: `${base}/console/callback`,
      postLogoutRedirectUri: `${base}/console/`,
      managementApi: `${base}/api`,
      basePath: '/console',
    });
  });
});
