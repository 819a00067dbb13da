/**
 * The console's browser tests' set-up: the workspace's issuer started by its CLI (packages/issuer's
 * `dist/cli.js start`, SQLite in a temp dir) with four users (root: console administrator, auditor:
 * console viewer, carol and sam: no console role), a headless Chromium, and what the tests do with a
 * page — sign in, move between pages, run axe-core, save screenshots, read everything the page holds.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_ROLES } from '@gatehouse/issuer';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import {
  adminToken,
  api,
  ensureBuilt,
  freePort,
  type Instance,
  startInstance,
  stopInstance,
  type TestIssuer,
} from './issuer.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where screenshots go (docs/console.md uses some, copied to docs/img/console). */
export const SHOTS = join(import.meta.dirname, '..', 'e2e', 'screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** Every seeded user's password. */
export const PASSWORD = 'a long console passphrase';
export const VIEWPORTS = {
  desktop: { width: 1280, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/** A started console world. */
export interface ConsoleWorld {
  readonly instance: Instance;
  readonly browser: Browser;
  /** The helpers' view of the issuer: its URL and administrator credentials. */
  readonly t: TestIssuer;
  /** User ids by username (root, auditor, carol, sam). */
  readonly ids: Record<string, string>;
  /** Everything any page wrote to the browser's console. */
  readonly printed: string[];
  stop(): Promise<void>;
}

/**
 * Start the issuer (named `name` in its logs; `env` adds settings, e.g.
 * `GATEHOUSE_CONSOLE_REAUTHENTICATE_AFTER`) and Chromium, and create the four users.
 */
export async function startConsoleWorld(
  name: string,
  env: Readonly<Record<string, string>> = {},
): Promise<ConsoleWorld> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-console-'));
  mkdirSync(SHOTS, { recursive: true });
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = {
    clientId: 'console-test-admin',
    clientSecret: 'console-test-admin-secret-0123456789abcdef',
  };
  const started = await Promise.allSettled([
    startInstance(
      name,
      baseUrl,
      {
        GATEHOUSE_DATABASE: join(dir, 'issuer.sqlite'),
        GATEHOUSE_ADMIN_CLIENT_ID: admin.clientId,
        GATEHOUSE_ADMIN_CLIENT_SECRET: admin.clientSecret,
        ...env,
      },
      port,
    ),
    chromium.launch({
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
    }),
  ]);
  const [instance, browser] = started.map((result) =>
    result.status === 'fulfilled' ? result.value : undefined,
  ) as [Instance | undefined, Browser | undefined];
  const stop = async () => {
    await browser?.close();
    if (instance !== undefined) await stopInstance(instance);
    rmSync(dir, { recursive: true, force: true });
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await stop();
    throw failed.reason;
  }
  const t = { baseUrl, admin } as unknown as TestIssuer;
  const ids: Record<string, string> = {};
  try {
    const token = await adminToken(t);
    const roles = (await api(t, token, 'GET', '/roles?pageSize=100')).body.items as {
      id: string;
      name: string;
    }[];
    const roleId = (role: string) => roles.find((r) => r.name === role)!.id;
    for (const [username, role] of [
      ['root', CONSOLE_ROLES.administrator.name],
      ['auditor', CONSOLE_ROLES.viewer.name],
      ['carol', undefined],
      ['sam', undefined],
    ] as const) {
      const user = await api(t, token, 'POST', '/users', { username, password: PASSWORD });
      expect(user.status).toBe(201);
      ids[username] = user.body.id;
      if (role !== undefined)
        expect(
          (await api(t, token, 'POST', `/users/${user.body.id}/roles`, { roleIds: [roleId(role)] })).status,
        ).toBe(204);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { instance: instance!, browser: browser!, t, ids, printed: [], stop };
}

/** A fresh browser context (its own cookies and storage) and page, recording page errors and CSP reports. */
export async function newPage(
  world: ConsoleWorld,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await world.browser.newContext({ viewport: VIEWPORTS.desktop });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    world.printed.push(message.text());
    if (message.type() === 'error' && message.location().url.startsWith(`${world.t.baseUrl}/console`))
      errors.push(message.text());
  });
  return { context, page, errors };
}

/** Sign in to the console as `username` through the issuer's sign-in page (axe checks the signed-out page). */
export async function signInAs(world: ConsoleWorld, page: Page, username: string): Promise<void> {
  await page.goto(`${world.t.baseUrl}/console/`);
  await page.locator('[data-state="signed-out"]').waitFor();
  await expect.poll(() => axe(page)).toEqual([]);
  await page.click('#sign-in');
  await page.waitForURL((url) => url.pathname.startsWith('/interaction/'));
  await page.fill('#identifier', username);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL(
    (url) => url.pathname.startsWith('/console/') && url.pathname !== '/console/callback',
  );
}

/** Serious or critical axe-core violations of the page as it is now (ids and the first target). */
export async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE);
  // Evaluated in the page (written as text: the test's TypeScript has no DOM types).
  const violations = await page.evaluate<{ id: string; impact: string; target: string }[]>(
    'axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, target: v.nodes[0].target.join(" ") })))',
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.target}`);
}

/** Check the page with axe and save screenshots at both widths (light; and dark when `dark`). */
export async function inspect(page: Page, name: string, dark = false): Promise<void> {
  expect(await axe(page), name).toEqual([]);
  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    if (dark) {
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await axe(page), `${name} (dark)`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}-dark.png`), fullPage: true });
      await page.emulateMedia({ colorScheme: 'light' });
    }
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** Follow a link of the console's navigation and wait for the page's heading. */
export async function nav(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The page's whole text, markup, form values and Web Storage. */
export async function everything(page: Page): Promise<string> {
  return page.evaluate<string>(`[
    document.documentElement.outerHTML,
    ...[...document.querySelectorAll('input, textarea')].map((el) => el.value),
    ...[sessionStorage, localStorage].flatMap((storage) =>
      Object.keys(storage).map((key) => key + '=' + storage.getItem(key)),
    ),
  ].join('\\n')`);
}
