/**
 * The support console in Chromium against the running demo servers: a person signs in as the support
 * engineer through the issuer's real sign-in page, presses Impersonate, and sees each step; the orders
 * API's audit line names the customer and the engineer. The page runs @gatehouse/client's browser build
 * under a strict Content-Security-Policy, talking to three other origins (issuer, backend, orders API).
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEOPLE } from '../src/seed.ts';
import type { World } from '../src/world.ts';
import { startTestWorld } from './helpers.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let world: World;
let browser: Browser;

beforeAll(async () => {
  [world, browser] = await Promise.all([
    startTestWorld(),
    chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${world.urls.console}/`);
  await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('signed-out');
  await page.click('#sign-in');
  await page.waitForURL((url) => url.href.startsWith(`${world.urls.issuer}/interaction/`));
  await page.fill('#identifier', username);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.waitForURL(`${world.urls.console}/`);
  await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('signed-in');
}

const steps = (page: Page) =>
  page
    .locator('#steps li')
    .evaluateAll((items) =>
      items.map((item) => [item.getAttribute('data-step'), item.getAttribute('data-ok'), item.textContent]),
    );

describe('the support console in Chromium', () => {
  it('signs in as the engineer, impersonates the customer by clicking, and the API audits both', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (message) => {
      // The console page's own errors (the issuer's sign-in page has no favicon: not ours to judge).
      if (message.type() === 'error' && message.location().url.startsWith(world.urls.console))
        errors.push(message.text());
    });

    await signIn(page, PEOPLE.engineer.username, PEOPLE.engineer.password);
    expect(await page.locator('#status').textContent()).toBe(`Signed in as sam (${world.users.engineer})`);
    expect(await page.inputValue('#user-id')).toBe(world.users.customer);

    const auditBefore = world.lines.api.length;
    await page.click('#impersonate button[type=submit]');
    await expect.poll(() => page.locator('#steps li').count()).toBe(3);
    const shown = await steps(page);
    expect(shown.map(([step, ok]) => [step, ok])).toEqual([
      ['backend', 'true'],
      ['exchange', 'true'],
      ['orders', 'true'],
    ]);
    expect(shown[0]![2]).toBe('Backend minted a subject token (single use, expires in 600 s)');
    expect(shown[1]![2]).toBe(
      `Exchanged it: sub = alice (${world.users.customer}), act.sub = sam (${world.users.engineer}), scope "read:orders"`,
    );
    expect(shown[2]![2]).toBe('GET /orders → 200 {"orders":[]}');

    const audit = world.lines.api.slice(auditBefore);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      event: 'impersonation',
      subject: world.users.customer,
      actor: world.users.engineer,
      clientId: world.consoleClientId,
    });

    expect(errors).toEqual([]);

    // The backend's policy refuses impersonating yourself; the page says so and exchanges nothing.
    await page.fill('#user-id', world.users.engineer);
    await page.click('#impersonate button[type=submit]');
    await expect
      .poll(() => steps(page))
      .toEqual([['backend', 'false', 'backend refused (403): you cannot impersonate yourself']]);

    // Nothing but the session is stored in the page, and no token ever lands in storage.
    const stored = await page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: localStorage.length,
    }));
    expect(stored).toEqual({ session: ['gatehouse:support-console:session'], local: 0 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
