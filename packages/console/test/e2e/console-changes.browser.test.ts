/**
 * The admin console in Chromium, changing and deleting what exists (issue #19's remainder): an
 * administrator edits an API resource's access-token lifetime (the next token lives that long) and its
 * scopes' descriptions, and the custom data of a user and an application (a body that is not a JSON
 * object, or too large, is refused with a sentence); then deletes a user, an application, an API
 * resource and a role, each after a confirmation dialog naming it. When the API refuses (the console's
 * own application, something deleted meanwhile), the dialog says why in a sentence and nothing changes.
 * Built-in roles and resources offer no delete; a console viewer sees none of these controls. axe-core
 * checks every new dialog (no serious or critical violation), and screenshots are saved.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleWorld,
  inspect,
  nav,
  newPage,
  signInAs,
  startConsoleWorld,
} from '../helpers/console-browser.js';
import { adminToken, api, clientCredentials } from '../helpers/issuer.js';

const BILLING = 'https://billing.example.com';

let world: ConsoleWorld;
/** Ids of what the set-up creates through the API. */
const ids: Record<string, string> = {};
let worker: { clientId: string; clientSecret: string };

beforeAll(async () => {
  world = await startConsoleWorld('console-changes');
  const { t } = world;
  const admin = await adminToken(t);
  const created = async (path: string, body: unknown) => {
    const res = await api(t, admin, 'POST', path, body);
    expect(res.status, path).toBe(201);
    return res.body;
  };
  ids.billing = (await created('/resources', { name: 'Billing API', indicator: BILLING })).id;
  const read = await created(`/resources/${ids.billing}/scopes`, {
    name: 'read:billing',
    description: 'Read bills',
  });
  const write = await created(`/resources/${ids.billing}/scopes`, { name: 'write:billing' });
  ids.reader = (await created('/roles', { name: 'billing-reader', type: 'User' })).id;
  ids.service = (await created('/roles', { name: 'billing-service', type: 'MachineToMachine' })).id;
  await api(t, admin, 'POST', `/roles/${ids.reader}/scopes`, { scopeIds: [read.id] });
  await api(t, admin, 'POST', `/roles/${ids.service}/scopes`, { scopeIds: [write.id] });
  ids.erin = (await created('/users', { username: 'erin', customData: { plan: 'basic' } })).id;
  ids.frank = (await created('/users', { username: 'frank' })).id;
  await api(t, admin, 'POST', `/users/${ids.erin}/roles`, { roleIds: [ids.reader] });
  const app = await created('/applications', {
    name: 'Billing worker',
    type: 'MachineToMachine',
    customData: { team: 'billing' },
  });
  worker = { clientId: app.clientId, clientSecret: app.clientSecret };
  ids.worker = app.id;
  await api(t, admin, 'POST', `/applications/${app.id}/roles`, { roleIds: [ids.service] });
}, 120_000);

afterAll(() => world?.stop());

/** The visible text of the alert (of the open confirmation dialog, when `where` is `#confirm`), once there is one. */
async function alertText(page: Page, where = 'main'): Promise<string> {
  const alert = page.locator(where).getByRole('alert');
  await alert.waitFor();
  return (await alert.textContent())!;
}

async function openUser(page: Page, username: string): Promise<void> {
  await nav(page, 'Users', 'Users');
  await page.getByRole('link', { name: username, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: username }).waitFor();
}

describe('changing and deleting from the console', { timeout: 120_000 }, () => {
  it('an administrator edits a resource’s token lifetime and its scopes’ descriptions', async () => {
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'root');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      await nav(page, 'API resources', 'API resources');
      await page.getByRole('link', { name: 'Billing API' }).click();
      await page.getByRole('heading', { level: 1, name: 'Billing API' }).waitFor();
      await page.fill('#edit-resource-ttl', '600');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => page.textContent('#resource-settings [role=status]')).toBe('Saved.');
      await expect.poll(() => page.textContent('#resource-ttl-value')).toBe('600');
      const admin = await adminToken(world.t);
      expect((await api(world.t, admin, 'GET', `/resources/${ids.billing}`)).body.accessTokenTtl).toBe(600);
      // The next token for the resource lives that long.
      const issued = await clientCredentials(world.t.baseUrl, worker.clientId, worker.clientSecret, {
        resource: BILLING,
      });
      expect(issued.status).toBe(200);
      expect(issued.body.expires_in).toBe(600);

      // A scope's description, in a dialog (axe-checked); the table shows the new one.
      await page.getByRole('button', { name: 'Edit the description of read:billing', exact: true }).click();
      expect(await page.inputValue('#edit-scope-description')).toBe('Read bills');
      await inspect(page, 'scope-description');
      await page.fill('#edit-scope-description', 'Read invoices and bills');
      await page.getByRole('button', { name: 'Save description', exact: true }).click();
      await page.locator('#edit-scope').waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: 'Read invoices and bills', exact: true }).waitFor();
      const scopes = await api(world.t, admin, 'GET', `/resources/${ids.billing}/scopes`);
      expect(
        scopes.body.items.map((scope: { name: string; description: string }) => [
          scope.name,
          scope.description,
        ]),
      ).toEqual([
        ['read:billing', 'Read invoices and bills'],
        ['write:billing', ''],
      ]);
      await inspect(page, 'resource-settings');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an administrator edits the custom data of a user and an application; bad JSON is refused with a sentence', async () => {
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'root');
      await openUser(page, 'erin');
      expect(JSON.parse(await page.inputValue('#custom-data-value'))).toEqual({ plan: 'basic' });
      const save = page.getByRole('button', { name: 'Save custom data', exact: true });
      for (const [text, expected] of [
        ['{"plan": ', 'Custom data is not valid JSON.'],
        ['["pro"]', 'Custom data must be a JSON object, e.g. {"plan": "pro"}.'],
      ] as const) {
        await page.fill('#custom-data-value', text);
        await save.click();
        await expect.poll(() => alertText(page)).toBe(expected);
      }
      // Too large for the API: its refusal, as a sentence naming the field.
      await page.fill('#custom-data-value', JSON.stringify({ notes: 'x'.repeat(5000) }));
      await save.click();
      await expect.poll(() => alertText(page)).toMatch(/^The custom data .*at most 4096 bytes\.$/);
      const admin = await adminToken(world.t);
      expect((await api(world.t, admin, 'GET', `/users/${ids.erin}`)).body.customData).toEqual({
        plan: 'basic',
      });
      await page.fill('#custom-data-value', '{"plan": "pro", "seats": 3}');
      await save.click();
      await expect.poll(() => page.textContent('#custom-data [role=status]')).toBe('Saved.');
      expect((await api(world.t, admin, 'GET', `/users/${ids.erin}`)).body.customData).toEqual({
        plan: 'pro',
        seats: 3,
      });
      await inspect(page, 'user-custom-data');

      await nav(page, 'Applications', 'Applications');
      await page.getByRole('link', { name: 'Billing worker' }).click();
      await page.getByRole('heading', { level: 1, name: 'Billing worker' }).waitFor();
      expect(JSON.parse(await page.inputValue('#custom-data-value'))).toEqual({ team: 'billing' });
      await page.fill('#custom-data-value', '{"team": "billing", "oncall": "#billing-alerts"}');
      await save.click();
      await expect.poll(() => page.textContent('#custom-data [role=status]')).toBe('Saved.');
      expect((await api(world.t, admin, 'GET', `/applications/${ids.worker}`)).body.customData).toEqual({
        team: 'billing',
        oncall: '#billing-alerts',
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an administrator deletes a user, an application, a role and an API resource after a confirmation naming each', async () => {
    const { context, page, errors } = await newPage(world);
    const admin = await adminToken(world.t);
    try {
      await signInAs(world, page, 'root');
      // A user: Cancel first keeps them; then deleted, gone from the list and the API.
      await openUser(page, 'erin');
      await page.click('#delete-button');
      expect(await page.textContent('#confirm-title')).toBe('Delete the user erin?');
      await inspect(page, 'delete-confirm');
      await page.locator('#confirm').getByRole('button', { name: 'Cancel', exact: true }).click();
      await page.locator('#confirm').waitFor({ state: 'detached' });
      expect((await api(world.t, admin, 'GET', `/users/${ids.erin}`)).status).toBe(200);
      await page.click('#delete-button');
      await page.locator('#confirm').getByRole('button', { name: 'Delete user', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      await page.getByRole('link', { name: 'frank', exact: true }).waitFor();
      expect(await page.getByRole('link', { name: 'erin', exact: true }).count()).toBe(0);
      expect((await api(world.t, admin, 'GET', `/users/${ids.erin}`)).status).toBe(404);

      // An application: deleted, and its client can no longer get a token.
      await nav(page, 'Applications', 'Applications');
      await page.getByRole('link', { name: 'Billing worker' }).click();
      await page.getByRole('heading', { level: 1, name: 'Billing worker' }).waitFor();
      await page.click('#delete-button');
      expect(await page.textContent('#confirm-title')).toBe('Delete the application Billing worker?');
      expect(await page.textContent('#confirm')).toContain(worker.clientId);
      await page.locator('#confirm').getByRole('button', { name: 'Delete application', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
      expect(await page.getByRole('link', { name: 'Billing worker' }).count()).toBe(0);
      const refused = await clientCredentials(world.t.baseUrl, worker.clientId, worker.clientSecret, {
        resource: BILLING,
      });
      expect(refused.status).toBe(401);

      // A role: deleted; the built-in ones offer no delete.
      await nav(page, 'Roles', 'Roles');
      await page.getByRole('link', { name: 'billing-reader' }).click();
      await page.getByRole('heading', { level: 1, name: 'billing-reader' }).waitFor();
      await page.click('#delete-button');
      expect(await page.textContent('#confirm-title')).toBe('Delete the role billing-reader?');
      await page.locator('#confirm').getByRole('button', { name: 'Delete role', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
      expect(await page.getByRole('link', { name: 'billing-reader' }).count()).toBe(0);
      expect((await api(world.t, admin, 'GET', `/roles/${ids.reader}`)).status).toBe(404);
      await page.getByRole('link', { name: 'Gatehouse console viewer' }).click();
      await page.getByRole('heading', { level: 1, name: 'Gatehouse console viewer' }).waitFor();
      expect(await page.locator('#delete-button').count()).toBe(0);

      // An API resource: deleted with its scopes; the built-in one offers no delete, nor settings.
      await nav(page, 'API resources', 'API resources');
      await page.getByRole('link', { name: 'Billing API' }).click();
      await page.getByRole('heading', { level: 1, name: 'Billing API' }).waitFor();
      await page.click('#delete-button');
      expect(await page.textContent('#confirm-title')).toBe('Delete the API resource Billing API?');
      await page
        .locator('#confirm')
        .getByRole('button', { name: 'Delete API resource', exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: 'API resources' }).waitFor();
      expect(await page.getByRole('link', { name: 'Billing API' }).count()).toBe(0);
      expect((await api(world.t, admin, 'GET', `/resources/${ids.billing}`)).status).toBe(404);
      await page.getByRole('link', { name: 'Gatehouse Management API', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Gatehouse Management API' }).waitFor();
      for (const selector of ['#delete-button', '#resource-settings', '#scopes button'])
        expect(await page.locator(selector).count(), selector).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a deletion the API refuses is explained in the dialog, and nothing changes', async () => {
    const { context, page, errors } = await newPage(world);
    const admin = await adminToken(world.t);
    try {
      await signInAs(world, page, 'root');
      // The console's own application: the API refuses to let it delete itself.
      await nav(page, 'Applications', 'Applications');
      await page.getByRole('link', { name: 'Gatehouse console', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Gatehouse console' }).waitFor();
      await page.click('#delete-button');
      await page.locator('#confirm').getByRole('button', { name: 'Delete application', exact: true }).click();
      const refusal = await alertText(page, '#confirm');
      expect(refusal).toBe('An application cannot delete itself.');
      await page.locator('#confirm[open]').waitFor();
      await inspect(page, 'delete-refused');
      await page.locator('#confirm').getByRole('button', { name: 'Cancel', exact: true }).click();
      expect((await api(world.t, admin, 'GET', '/applications/gatehouse-console')).status).toBe(200);

      // A user deleted meanwhile (by someone else): "It no longer exists."
      await openUser(page, 'frank');
      await page.getByRole('region', { name: 'Personal access tokens' }).getByText('None.').waitFor(); // loaded
      expect((await api(world.t, admin, 'DELETE', `/users/${ids.frank}`)).status).toBe(204);
      await page.click('#delete-button');
      await page.locator('#confirm').getByRole('button', { name: 'Delete user', exact: true }).click();
      expect(await alertText(page, '#confirm')).toBe('User not found.');
      await page.locator('#confirm[open]').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a console viewer sees none of these controls', async () => {
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'auditor');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      await openUser(page, 'root');
      expect(await page.locator('#custom-data-value').getAttribute('readonly')).not.toBeNull();
      for (const selector of ['#delete-button', '#custom-data button'])
        expect(await page.locator(selector).count(), selector).toBe(0);
      await nav(page, 'Applications', 'Applications');
      await page.getByRole('link', { name: 'Gatehouse console', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Gatehouse console' }).waitFor();
      for (const selector of ['#delete-button', '#custom-data button'])
        expect(await page.locator(selector).count(), selector).toBe(0);
      await nav(page, 'Roles', 'Roles');
      await page.getByRole('link', { name: 'billing-service' }).click();
      await page.getByRole('heading', { level: 1, name: 'billing-service' }).waitFor();
      expect(await page.locator('#delete-button').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
