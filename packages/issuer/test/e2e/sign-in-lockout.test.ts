/**
 * Sign-in lockout in a real browser (Chromium via playwright-core), with browsers at two client
 * addresses (told apart as a trusted proxy tells them: `proxy.hops: 1`, the right-most
 * `X-Forwarded-For` entry, set on each browser context; documentation addresses, never connected
 * to). Wrong passwords typed into the sign-in page at the default threshold lock that address out of
 * the account: the page says so (and not whether the account exists) and refuses the right password
 * there while the lock lasts, while the same user at another address signs in at once (F12); once
 * the lock ends the first address signs in too.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { authorizeUrl, pkce } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

/** Long enough that every step taken while the lock holds finishes inside it on a loaded machine. */
const LOCK_SECONDS = 15;
/** The default threshold: ten wrong passwords from one address. */
const THRESHOLD = DEFAULTS.signIn.maxFailuresPerAccountAndAddress;
const LOCKED = /^Too many failed sign-in attempts from your network\. Try again in \d+ seconds?\.$/;

describe.each(DRIVERS)('%s', (driver) => {
  const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  let t: TestIssuer;
  let browser: Browser;
  let callbackServer: Server;
  let redirect: string;

  beforeAll(async () => {
    callbackServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in'),
    );
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirect = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    t = await startIssuer(driver, {
      proxy: { hops: 1 },
      signIn: { lockDuration: LOCK_SECONDS, delay: 0, maxDelay: 0 },
    });
    await t.issuer.seed({
      users: [{ username: 'grace', email: 'grace@example.com', password: PASSWORD }],
      applications: [
        {
          name: 'Lockout web',
          type: 'Traditional',
          clientId: 'lockout-web',
          clientSecret: 'lockout-secret-0123456789abcdefghijklmno',
          redirectUris: [redirect],
        },
      ],
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callbackServer?.close(resolve));
    await t?.close();
  });

  /** A sign-in page in a new browser whose requests come from client `address`. */
  async function signInPage(address: string): Promise<Page> {
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': address } });
    const page = await context.newPage();
    await page.goto(
      authorizeUrl({
        baseUrl: t.baseUrl,
        clientId: 'lockout-web',
        redirectUri: redirect,
        scope: 'openid',
        codeChallenge: pkce().challenge,
      }),
    );
    expect(await page.title()).toBe('Sign in');
    return page;
  }

  async function submit(page: Page, identifier: string, password: string): Promise<string> {
    await page.fill('#identifier', identifier);
    await page.fill('#password', password);
    // Mark the page, so the answer is read from the next one and never from this one.
    await page.evaluate("document.body.setAttribute('data-submitted', '')");
    await page.click('button[type=submit]');
    await page.waitForSelector('body:not([data-submitted])');
    return (await page.textContent('[role=alert]'))?.trim() ?? '';
  }

  it("F12: ten wrong passwords lock the browser's address out of the account; the same user at another address signs in at once (B60)", async () => {
    const page = await signInPage('198.51.100.31');
    const messages: string[] = [];
    for (let i = 0; i < THRESHOLD; i++) messages.push(await submit(page, 'grace', `wrong ${i}`));
    expect(THRESHOLD).toBe(10);
    expect(messages.slice(0, -1)).toEqual(
      Array(THRESHOLD - 1).fill('The username, email or password is incorrect.'),
    );
    expect(messages.at(-1)).toMatch(LOCKED);
    expect(await submit(page, 'grace', PASSWORD)).toMatch(LOCKED);
    expect(page.url()).not.toContain(redirect);

    // The same user in another browser, at another address, is not locked out (nor slowed down past maxDelay).
    const elsewhere = await signInPage('198.51.100.32');
    await elsewhere.fill('#identifier', 'grace');
    await elsewhere.fill('#password', PASSWORD);
    await elsewhere.click('button[type=submit]');
    await elsewhere.waitForURL((url) => url.href.startsWith(redirect));
    expect(await elsewhere.textContent('body')).toBe('signed in');
    await elsewhere.context().close();

    // An account that does not exist reads the same.
    const unknown = await signInPage('198.51.100.33');
    const unknownMessages: string[] = [];
    for (let i = 0; i <= THRESHOLD; i++)
      unknownMessages.push(await submit(unknown, 'no-such-user', `wrong ${i}`));
    expect(unknownMessages.map((message) => message.replace(/\d+ seconds?/, 'N'))).toEqual(
      [...messages, messages.at(-1)!].map((message) => message.replace(/\d+ seconds?/, 'N')),
    );
    await unknown.context().close();

    // The lock ends: the first address signs in too.
    await new Promise((resolve) => setTimeout(resolve, (LOCK_SECONDS + 1) * 1000));
    await page.fill('#identifier', 'grace');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.href.startsWith(redirect));
    expect(await page.textContent('body')).toBe('signed in');
    await page.context().close();
  }, 90_000);
});
