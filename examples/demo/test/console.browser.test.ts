/**
 * The support console in Chromium against the running demo servers: a person signs in as the support
 * engineer through the issuer's real sign-in page, presses Impersonate, and sees each step; the orders
 * API's audit line names the customer and the engineer. A customer who signs in is told they may not
 * impersonate, and sees no form; a cancelled sign-in is a sentence, not an error code. The page looks
 * like the issuer's sign-in pages in light and dark mode, at phone and desktop widths, with a label on
 * every input and a visible focus. The page runs @gatehouse/client's browser build under a strict
 * Content-Security-Policy, talking to three other origins (issuer, backend, orders API).
 */
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

/** Errors of the console page itself (the issuer's sign-in page has no favicon: not ours to judge). */
function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && message.location().url.startsWith(world.urls.console))
      errors.push(message.text());
  });
  return errors;
}

/** Open the console and press "Sign in": resolves on the issuer's sign-in page. */
async function toSignInPage(page: Page): Promise<void> {
  await page.goto(`${world.urls.console}/`);
  await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('signed-out');
  await page.click('#sign-in');
  await page.waitForURL((url) => url.href.startsWith(`${world.urls.issuer}/interaction/`));
}

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await toSignInPage(page);
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
    const errors = pageErrors(page);

    await signIn(page, PEOPLE.engineer.username, PEOPLE.engineer.password);
    expect(await page.locator('#status').textContent()).toBe(`Signed in as sam (${world.users.engineer})`);
    expect(await page.isVisible('#impersonate')).toBe(true);
    expect(await page.isVisible('#not-allowed')).toBe(false);
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

describe('who may impersonate, and sign-in errors', () => {
  let context: BrowserContext;
  afterEach(() => context?.close());

  it('a customer is told they may not impersonate, and sees no form', async () => {
    context = await browser.newContext();
    const page = await context.newPage();
    const errors = pageErrors(page);
    await signIn(page, PEOPLE.customer.username, PEOPLE.customer.password);
    expect(await page.locator('#status').textContent()).toBe(`Signed in as alice (${world.users.customer})`);
    expect(await page.isVisible('#impersonate')).toBe(false);
    expect(await page.isVisible('#not-allowed')).toBe(true);
    expect(await page.locator('#not-allowed').textContent()).toBe(
      'You are not allowed to impersonate customers: your account has no role that grants the impersonate:users permission of the support backend. Ask an administrator if your work needs it.',
    );
    expect(await page.isVisible('#notice')).toBe(false);
    expect(await page.isVisible('#sign-out')).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a cancelled sign-in is a sentence, and the page can sign in again', async () => {
    context = await browser.newContext();
    const page = await context.newPage();
    const errors = pageErrors(page);
    await toSignInPage(page);
    await page.click('button.secondary'); // the issuer's "Cancel"
    await page.waitForURL(`${world.urls.console}/`);
    await expect.poll(() => page.locator('#status').getAttribute('data-state')).toBe('signed-out');
    expect(await page.locator('#notice').textContent()).toBe('The sign-in was cancelled.');
    expect(await page.isVisible('#notice')).toBe(true);
    expect(await page.isVisible('#sign-in')).toBe(true);
    expect(await page.isVisible('#impersonate')).toBe(false);
    expect(await page.locator('body').textContent()).not.toContain('access_denied');
    expect(errors).toEqual([]);
  });
});

describe('the console looks like the rest of the product', () => {
  let context: BrowserContext;
  afterEach(() => context?.close());

  /** Computed look of the page (a string, run in the page: this project has no DOM types). */
  const look = (page: Page) =>
    page.evaluate(`(() => {
      const css = (selector) => getComputedStyle(document.querySelector(selector));
      return {
        page: css('body').backgroundColor,
        card: css('main').backgroundColor,
        text: css('body').color,
        button: css('#impersonate button[type=submit]').backgroundColor,
        font: css('body').fontFamily,
        overflow: document.documentElement.scrollWidth - window.innerWidth,
        cardWidth: document.querySelector('main').getBoundingClientRect().width,
        unlabelled: [...document.querySelectorAll('input')].filter((input) => input.labels.length !== 1).length,
      };
    })()`) as Promise<Record<string, string | number>>;

  it('light and dark, phone and desktop, labels and focus', async () => {
    context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page, PEOPLE.engineer.username, PEOPLE.engineer.password);

    const light = await look(page);
    // The sign-in pages' colours (packages/issuer/src/interactions/views/layout.ts).
    expect(light).toMatchObject({
      page: 'rgb(244, 245, 247)',
      card: 'rgb(255, 255, 255)',
      text: 'rgb(31, 35, 40)',
      button: 'rgb(31, 111, 235)',
      overflow: 0,
      unlabelled: 0,
    });
    expect(String(light.font)).toContain('system-ui');
    expect(light.cardWidth).toBeLessThanOrEqual(640);

    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await look(page);
    expect(dark).toMatchObject({
      page: 'rgb(13, 17, 23)',
      card: 'rgb(22, 27, 34)',
      text: 'rgb(230, 237, 243)',
    });

    await page.setViewportSize({ width: 375, height: 740 });
    const phone = await look(page);
    expect(phone.overflow).toBe(0);
    expect(phone.cardWidth).toBe(375);
    expect(await page.isVisible('#impersonate button[type=submit]')).toBe(true);

    // Keyboard focus is visible: a 3 px outline in the focus colour.
    await page.focus('#user-id');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(`(() => {
      const style = getComputedStyle(document.activeElement);
      return { id: document.activeElement.id, style: style.outlineStyle, width: style.outlineWidth };
    })()`);
    expect(focused).toEqual({ id: 'reason', style: 'solid', width: '3px' });
  });
});
