/**
 * Sign-in lockout in a real browser (Chromium via playwright-core): wrong passwords typed into the
 * sign-in page until the account is locked; the page then says so (and not whether the account
 * exists), refuses the right password while the lock lasts, and signs the user in once it ends.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkce } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

const LOCK_SECONDS = 2;

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
      signIn: { maxFailures: 3, lockDuration: LOCK_SECONDS, delay: 0, maxDelay: 0 },
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

  async function signInPage(): Promise<Page> {
    const page = await browser.newPage();
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

  it('B60: the sign-in page says the account is locked after the threshold, refuses the right password, then lets the user in', async () => {
    const page = await signInPage();
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) messages.push(await submit(page, 'grace', `wrong ${i}`));
    expect(messages.slice(0, 2)).toEqual([
      'The username, email or password is incorrect.',
      'The username, email or password is incorrect.',
    ]);
    expect(messages[2]).toMatch(/^Too many failed sign-in attempts\. Try again in \d seconds?\.$/);
    expect(await submit(page, 'grace', PASSWORD)).toMatch(/^Too many failed sign-in attempts/);
    expect(page.url()).not.toContain(redirect);

    // An account that does not exist reads the same.
    const unknown = await signInPage();
    const unknownMessages: string[] = [];
    for (let i = 0; i < 4; i++) unknownMessages.push(await submit(unknown, 'no-such-user', `wrong ${i}`));
    expect(unknownMessages.map((message) => message.replace(/\d+ seconds?/, 'N'))).toEqual(
      [...messages, messages[2]!].map((message) => message.replace(/\d+ seconds?/, 'N')),
    );
    await unknown.close();

    await new Promise((resolve) => setTimeout(resolve, (LOCK_SECONDS + 1) * 1000));
    await page.fill('#identifier', 'grace');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL((url) => url.href.startsWith(redirect));
    expect(await page.textContent('body')).toBe('signed in');
    await page.close();
  });
});
