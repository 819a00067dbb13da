/**
 * The console's side of the control plane in Chromium, besides re-authentication (F20, in
 * console-reauth.browser.test.ts):
 * - F21: administrators' changes — made through the API by an application, and in the console by a
 *   person — are listed in the activity page's Administration view as readable lines (who, what, on
 *   what, which fields, when; names linked), filterable by type; refused sign-ins in the Sign-in view,
 *   without showing what was typed for an account that does not exist.
 * - F3 / F4: a console user holding `users:write` (not `all`) who tries to give someone the console
 *   administrator role, or to reset an administrator's password, is told why in a sentence; nothing
 *   changes.
 * - Issue #29 item 8: conflicts and field problems as sentences, empty states, a new role opens its
 *   page, and the TOTP enrolment page's QR code (axe-checked).
 * axe-core checks every new view and dialog.
 */
import type { Page } from 'playwright-core';
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

const BILLING = 'https://billing.example.com';
/** A password typed into the identifier field of the sign-in page: never shown back. */
const TYPED_PASSWORD = 'oops-my-Password-9';

let world: ConsoleWorld;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await startConsoleWorld('console-admin');
  const { t } = world;
  const admin = await adminToken(t);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await api(t, admin, method, path, body);
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.body;
  };
  // A console user who may change users (and read roles), nothing else.
  const resources = (await ok('GET', '/resources?pageSize=100')).items as { id: string; system: boolean }[];
  const management = resources.find((resource) => resource.system)!;
  const scopes = (await ok('GET', `/resources/${management.id}/scopes`)).items as {
    id: string;
    name: string;
  }[];
  const scopeId = (name: string) => scopes.find((scope) => scope.name === name)!.id;
  ids.editorRole = (await ok('POST', '/roles', { name: 'user-editor', type: 'User' })).id;
  await ok('POST', `/roles/${ids.editorRole}/scopes`, {
    scopeIds: ['users:read', 'users:write', 'roles:read'].map(scopeId),
  });
  ids.una = (await ok('POST', '/users', { username: 'una', password: PASSWORD })).id;
  ids.vic = (await ok('POST', '/users', { username: 'vic' })).id;
  await ok('POST', `/users/${ids.una}/roles`, { roleIds: [ids.editorRole] });
  // Changes made by the administrator application.
  ids.billing = (await ok('POST', '/resources', { name: 'Billing API', indicator: BILLING })).id;
  ids.read = (await ok('POST', `/resources/${ids.billing}/scopes`, { name: 'read:billing' })).id;
  ids.reader = (await ok('POST', '/roles', { name: 'billing-reader', type: 'User' })).id;
  await ok('POST', `/roles/${ids.reader}/scopes`, { scopeIds: [ids.read] });
  await ok('POST', `/users/${world.ids.carol}/roles`, { roleIds: [ids.reader] });
  await ok('PUT', `/users/${world.ids.carol}/password`, { password: 'a brand new password' });
}, 120_000);

afterAll(() => world?.stop());

/** The newest entry of the Administration view of `type`. */
const change = (page: Page, type: string) => page.locator(`#changes > li[data-type="${type}"]`).first();

/** Try to sign in as `identifier` with a wrong password, in a context of its own. */
async function failSignIn(identifier: string): Promise<void> {
  const { context, page } = await newPage(world);
  try {
    await page.goto(`${world.t.baseUrl}/console/`);
    await page.click('#sign-in');
    await page.waitForURL((url) => url.pathname.startsWith('/interaction/'));
    await page.fill('#identifier', identifier);
    await page.fill('#password', 'not the password at all');
    await page.click('button[type=submit]');
    await page.getByRole('alert').waitFor();
  } finally {
    await context.close();
  }
}

describe('the console and the control plane', { timeout: 120_000 }, () => {
  it('F21: administrators’ changes are listed in the Administration view as readable lines', async () => {
    await failSignIn('carol');
    await failSignIn(TYPED_PASSWORD);
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'root');
      // A change made here, by a person: sam is disabled.
      await nav(page, 'Users', 'Users');
      await page.getByRole('link', { name: 'sam', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'sam' }).waitFor();
      await page.click('#toggle-suspension');
      await expect.poll(() => page.textContent('#user-status')).toBe('Disabled');

      await nav(page, 'Activity', 'Impersonation activity');
      await page
        .getByRole('navigation', { name: 'Activity views' })
        .getByRole('link', { name: 'Administration' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Administration activity' }).waitFor();
      // By a person in the console: named and linked, through the console's application.
      const disabled = change(page, 'user.suspension_set');
      await expect
        .poll(() => disabled.locator('p.change').textContent())
        .toBe(`Disabled the user sam${world.ids.sam}.`);
      expect(await disabled.getByRole('link', { name: 'sam', exact: true }).getAttribute('href')).toBe(
        `/console/users/${world.ids.sam}`,
      );
      const by = disabled.locator('dl.facts > div').filter({ hasText: 'By' });
      await by.getByRole('link', { name: 'root', exact: true }).waitFor();
      expect(await disabled.textContent()).toContain('Gatehouse console');
      expect(await disabled.textContent()).toContain('suspended'); // the field
      // By the administrator application: roles, scopes and users by name, fields named, no value.
      const added = change(page, 'role.scopes_added');
      await expect
        .poll(() => added.locator('p.change').textContent())
        .toBe(`Added the scope read:billing${ids.read} to the role billing-reader${ids.reader}.`);
      expect(await added.getByRole('link', { name: 'billing-reader' }).getAttribute('href')).toBe(
        `/console/roles/${ids.reader}`,
      );
      expect(await added.textContent()).toContain('the application');
      expect(await added.textContent()).toContain('console-test-admin');
      const password = change(page, 'user.password_set');
      expect(await password.locator('p.change').textContent()).toBe(
        `Set the password of carol${world.ids.carol}.`,
      );
      expect(await password.textContent()).toContain('PUT /api/users/{id}/password');
      expect(await everything(page)).not.toContain('a brand new password');
      await expect
        .poll(() => change(page, 'user.roles_assigned').locator('p.change').textContent())
        .toBe(`Gave carol${world.ids.carol} the role billing-reader${ids.reader}.`);
      await inspect(page, 'activity-administration', true);

      // Filtered by type: only those, the filter in the address.
      await page.selectOption('#filter-type', 'user.password_set');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('type') === 'user.password_set');
      await expect.poll(() => page.locator('#changes > li').count()).toBe(1); // users created with one are user.created
      for (const li of await page.locator('#changes > li').all())
        expect(await li.getAttribute('data-type')).toBe('user.password_set');

      // Refused sign-ins: the account named, and nothing of what was typed for no account.
      await page
        .getByRole('navigation', { name: 'Activity views' })
        .getByRole('link', { name: 'Sign-in' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Sign-in activity' }).waitFor();
      const entries = page.locator('#sign-ins > li');
      await expect.poll(() => entries.count()).toBe(2);
      const [unknown, carol] = await entries.all();
      expect(await carol!.locator('p.reason').textContent()).toBe(
        'The username, email or password was wrong.',
      );
      await carol!.getByRole('link', { name: 'carol', exact: true }).waitFor();
      expect(await unknown!.textContent()).toContain('No such account');
      expect(await everything(page)).not.toContain(TYPED_PASSWORD);
      await inspect(page, 'activity-sign-in');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('F3: a console user holding users:write who gives someone the console administrator role is told why, and nothing changes', async () => {
    const { context, page, errors } = await newPage(world);
    const admin = await adminToken(world.t);
    try {
      await signInAs(world, page, 'una');
      await nav(page, 'Users', 'Users');
      await page.getByRole('link', { name: 'vic', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'vic' }).waitFor();
      await page.selectOption('#add-role', { label: 'Gatehouse console administrator' });
      await page.getByRole('button', { name: 'Add role', exact: true }).click();
      const roles = page.getByRole('region', { name: 'Roles' });
      await expect
        .poll(() => roles.getByRole('alert').textContent())
        .toBe(
          'A role grants scopes you do not hold: all. You can only grant roles whose scopes you hold yourself.',
        );
      await inspect(page, 'ceiling-refused');
      const held = await api(world.t, admin, 'GET', `/users/${ids.vic}/roles`);
      expect(held.body.items).toEqual([]);

      // F4: the password of an administrator (who holds more than una) is not hers to reset.
      await nav(page, 'Users', 'Users');
      await page.getByRole('link', { name: 'root', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'root' }).waitFor();
      await page.click('#reset-password-button');
      await page.fill('#reset-password-value', 'an attacker’s new password');
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await expect
        .poll(() => page.locator('#reset-password').getByRole('alert').textContent())
        .toBe(
          'The user holds scopes you do not hold: all. You can only change users and applications that hold no more than you do.',
        );
      expect(await everything(page)).not.toContain('principal_exceeds_caller');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('#29 item 8: conflicts and field problems as sentences, empty states, a new role opens its page', async () => {
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'root');
      await nav(page, 'Users', 'Users');
      await page.click('#new-user-button');
      const dialog = page.locator('#new-user');
      await page.fill('#new-username', 'carol');
      await dialog.getByRole('button', { name: 'Create user', exact: true }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toBe('A user with this username exists already.');
      await page.fill('#new-username', 'newbie');
      await page.fill('#new-password', 'short');
      await dialog.getByRole('button', { name: 'Create user', exact: true }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toMatch(/^The password must be at least \d+ characters long\.$/);
      await inspect(page, 'field-sentence');
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      // An empty search result says so.
      await page.fill('#user-search', 'nobody-by-this-name');
      await expect.poll(() => page.textContent('#users-empty')).toBe('No user matches this search.');

      await nav(page, 'API resources', 'API resources');
      await page.click('#new-resource-button');
      await page.fill('#resource-name', 'Billing again');
      await page.fill('#resource-indicator', BILLING);
      await page
        .locator('#new-resource')
        .getByRole('button', { name: 'Create resource', exact: true })
        .click();
      await expect
        .poll(() => page.locator('#new-resource').getByRole('alert').textContent())
        .toBe('An API resource with this indicator exists already.');
      await page.locator('#new-resource').getByRole('button', { name: 'Cancel', exact: true }).click();

      // A new role opens its page, ready for its scopes.
      await nav(page, 'Roles', 'Roles');
      await page.click('#new-role-button');
      await page.fill('#role-name', 'triage');
      await page.locator('#new-role').getByRole('button', { name: 'Create role', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'triage' }).waitFor();
      await page.getByText('No scopes yet.').waitFor();
      await page.locator('#add-scope').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('#29 item 8: the TOTP enrolment page shows a QR code, and axe finds nothing on it', async () => {
    const { context, page, errors } = await newPage(world);
    try {
      // The console's own client, asked for the mfa level: sam has no authenticator yet, so he enrols.
      const admin = await adminToken(world.t);
      await api(world.t, admin, 'PUT', `/users/${world.ids.sam}/suspension`, { suspended: false });
      const url = new URL(`${world.t.baseUrl}/oidc/auth`);
      for (const [name, value] of Object.entries({
        client_id: 'gatehouse-console',
        redirect_uri: `${world.t.baseUrl}/console/callback`,
        response_type: 'code',
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        acr_values: 'urn:gatehouse:acr:mfa',
      }))
        url.searchParams.set(name, value);
      await page.goto(url.href);
      await page.fill('#identifier', 'sam');
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.getByRole('heading', { level: 1, name: 'Set up your authenticator app' }).waitFor();
      const qr = page.getByRole('img', { name: 'QR code of the enrolment link' });
      await qr.waitFor();
      const box = await qr.boundingBox();
      expect(box!.width).toBeGreaterThanOrEqual(150);
      await inspect(page, 'totp-enrolment');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
