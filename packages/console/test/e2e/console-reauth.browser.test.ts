/**
 * Catalogue F20 in the console, in Chromium: the issuer is started with `console.reauthenticateAfter`
 * of a few seconds. An administrator signs in, and once the sign-in is older than that (plus the 5 s
 * clock tolerance of the check; the test waits for the sign-in's own `auth_time` to age, read from the
 * token the console sends) a non-dangerous change still goes through without a question, while
 * rotating the signing key opens "Sign in again to continue" and changes nothing. Cancelling the
 * sign-in page comes back with a notice that nothing was done; signing in again — the issuer asks for
 * the password — comes back to the keys page with the rotation offered again, and one click makes it.
 * Throughout, the access token is only ever in memory and the Authorization header: never in
 * localStorage, sessionStorage, a cookie, the page or an address. axe-core checks the dialog and the
 * notice.
 */
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleWorld,
  everything,
  inspect,
  nav,
  newPage,
  PASSWORD,
  signInAs,
  startConsoleWorld,
} from '../helpers/console-browser.js';
import { adminToken, api } from '../helpers/issuer.js';

/** `console.reauthenticateAfter`, seconds. */
const AGE = 5;
/** The clock tolerance of @gatehouse/core's `maxAge` check, seconds. */
const TOLERANCE = 5;

let world: ConsoleWorld;
let plainRole: string;

beforeAll(async () => {
  world = await startConsoleWorld('console-reauth', { GATEHOUSE_CONSOLE_REAUTHENTICATE_AFTER: String(AGE) });
  const admin = await adminToken(world.t);
  const role = await api(world.t, admin, 'POST', '/roles', { name: 'support-agent', type: 'User' });
  expect(role.status).toBe(201);
  plainRole = role.body.id;
}, 120_000);

afterAll(() => world?.stop());

const payload = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

/** Record every Management API access token the page sends, and every address it visits. */
function watch(page: Page): { tokens: string[]; urls: string[] } {
  const seen = { tokens: [] as string[], urls: [] as string[] };
  page.on('request', (request: Request) => {
    seen.urls.push(request.url());
    if (!request.url().startsWith(`${world.t.baseUrl}/api/`)) return;
    void request.allHeaders().then((headers) => {
      const token = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (token !== undefined && !seen.tokens.includes(token)) seen.tokens.push(token);
    });
  });
  page.on('framenavigated', (frame) => seen.urls.push(frame.url()));
  return seen;
}

async function activeKid(): Promise<string> {
  const admin = await adminToken(world.t);
  const keys = (await api(world.t, admin, 'GET', '/signing-keys')).body.items as {
    kid: string;
    status: string;
  }[];
  return keys.find((key) => key.status === 'active')!.kid;
}

describe('signing in again for a dangerous change (F20)', { timeout: 120_000 }, () => {
  it('F20: past console.reauthenticateAfter, key rotation asks for the password again and is then made; a non-dangerous change does not ask; the token stays in memory', async () => {
    const { context, page, errors } = await newPage(world);
    const seen = watch(page);
    try {
      await signInAs(world, page, 'root');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      await expect.poll(() => seen.tokens.length).toBeGreaterThan(0);
      const first = payload(seen.tokens[0]!);
      expect(first.sub).toBe(world.ids.root);
      // Let the sign-in age past the setting and the check's tolerance.
      const authTime = Number(first.auth_time);
      const wait = (authTime + AGE + TOLERANCE + 1) * 1000 - Date.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));

      // A change that grants no Management API scope: made at once, no question asked.
      await nav(page, 'Users', 'Users');
      await page.getByRole('link', { name: 'carol', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'carol' }).waitFor();
      await page.selectOption('#add-role', { label: 'support-agent' });
      await page.getByRole('button', { name: 'Add role', exact: true }).click();
      await page.locator('#assigned-roles').getByRole('link', { name: 'support-agent' }).waitFor();
      expect(await page.locator('#step-up').count()).toBe(0);
      const admin = await adminToken(world.t);
      const roles = await api(world.t, admin, 'GET', `/users/${world.ids.carol}/roles`);
      expect(roles.body.items.map((role: { id: string }) => role.id)).toEqual([plainRole]);

      // Key rotation: refused for want of a recent sign-in, explained, nothing changed.
      const before = await activeKid();
      await nav(page, 'Signing keys', 'Signing keys');
      await page.click('#rotate-key');
      await page.locator('#confirm').getByRole('button', { name: 'Rotate now', exact: true }).click();
      const dialog = page.locator('#step-up');
      await dialog.waitFor();
      expect(await page.textContent('#step-up-title')).toBe('Sign in again to continue');
      expect(await dialog.textContent()).toContain(
        `To rotate the signing key, the issuer needs a sign-in from the last ${AGE} seconds, and yours is older.`,
      );
      await inspect(page, 'step-up-dialog');
      expect(await activeKid()).toBe(before);

      // Cancelled on the issuer's page: back with a notice, nothing done.
      await dialog.getByRole('button', { name: 'Sign in again', exact: true }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/interaction/'));
      expect(new URL(page.url()).pathname).not.toContain('/console');
      await page.getByRole('button', { name: 'Cancel', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/console/keys');
      const notice = page.locator('#step-up-notice');
      await notice.waitFor();
      expect(await notice.getByRole('heading').textContent()).toBe('Not signed in again');
      expect(await page.textContent('#step-up-notice-text')).toBe(
        'You did not sign in again (the sign-in was cancelled), so the change was not made. To rotate the signing key, start again.',
      );
      expect(await notice.locator('#step-up-repeat').count()).toBe(0);
      expect(await activeKid()).toBe(before);
      await page.click('#step-up-dismiss');
      await notice.waitFor({ state: 'detached' });

      // Again, and this time signed in: the issuer asks for the password (the session alone is too old).
      await page.click('#rotate-key');
      await page.locator('#confirm').getByRole('button', { name: 'Rotate now', exact: true }).click();
      await dialog.getByRole('button', { name: 'Sign in again', exact: true }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/interaction/'));
      await page.locator('#password').waitFor();
      expect(await page.textContent('h1')).toBe('Sign in');
      await page.fill('#identifier', 'root');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL((url) => url.pathname === '/console/keys');
      await notice.waitFor();
      expect(await notice.getByRole('heading').textContent()).toBe('Signed in again');
      expect(await page.textContent('#step-up-notice-text')).toBe(
        'You signed in again. Rotate the signing key now?',
      );
      expect(await activeKid()).toBe(before); // offered, not made behind the person's back
      await inspect(page, 'step-up-notice');
      await page.click('#step-up-repeat');
      await expect.poll(() => page.textContent('#step-up-notice-text')).toBe('The signing key was rotated.');
      const after = await activeKid();
      expect(after).not.toBe(before);
      // The page read the keys again: the new one is the active one.
      await page.locator(`#keys tr[data-status="active"] code`, { hasText: after }).waitFor();
      const events = await api(
        world.t,
        await adminToken(world.t),
        'GET',
        '/audit-events?type=signing_key.rotated',
      );
      expect(events.body.items).toHaveLength(1);
      expect(events.body.items[0]).toMatchObject({
        actorId: world.ids.root,
        applicationId: 'gatehouse-console',
      });

      // The newer token is of the new sign-in.
      const last = payload(seen.tokens.at(-1)!);
      expect(Number(last.auth_time)).toBeGreaterThan(authTime + AGE);
      // No token anywhere but in memory and the Authorization header.
      const stored = await everything(page);
      const cookies = JSON.stringify(await context.cookies());
      expect(seen.tokens.length).toBeGreaterThanOrEqual(2);
      for (const token of seen.tokens) {
        expect(stored).not.toContain(token);
        expect(cookies).not.toContain(token);
        for (const url of seen.urls) expect(url).not.toContain(token);
        expect(page.url()).not.toContain(token);
      }
      const storage = await page.evaluate<string>(
        'JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage)])',
      );
      expect(storage).not.toMatch(/access_?token/i);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
