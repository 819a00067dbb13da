/**
 * The admin console in Chromium against the issuer of the workspace started by its CLI
 * (packages/issuer's `dist/cli.js start`, SQLite), which serves this package's build: an
 * administrator signs in through the issuer's own sign-in page and, by clicking only, creates an API
 * resource with two scopes, a user role and an M2M role, a user (disables, enables, resets the
 * password, gives a role, creates a personal access token shown once), an SPA and an M2M application
 * (secret shown once and working, a role, the token-exchange switch), and rotates the signing key
 * after a confirmation; an impersonation run through the API appears in the timeline with its actor,
 * subject, application, API, outcome and context, is filterable, and links to the users. A user with
 * no console role is refused; a console viewer sees every page without a single control that changes
 * anything. No shown-once secret stays in the page after its dialog closes, or reaches storage. Every
 * page passes axe-core (no serious or critical violations) and runs under the console's CSP without a
 * violation; screenshots of every page, at desktop and phone widths, light and dark, are saved to
 * test/e2e/screenshots/. How the issuer serves the build (headers, hashed assets, its start banner) is
 * the issuer's to test: packages/issuer/test/e2e/console-assets.test.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleWorld,
  everything,
  inspect,
  nav,
  newPage as openPage,
  PASSWORD,
  signInAs as signInWorld,
  startConsoleWorld,
} from '../helpers/console-browser.js';
import {
  ACCESS_TOKEN_TYPE,
  Agent,
  adminToken,
  api,
  clientCredentials,
  codeOf,
  pkce,
  signIn,
  type TestIssuer,
  TOKEN_EXCHANGE,
  tokenRequest,
} from '../helpers/issuer.js';

const ORDERS = 'https://orders.example.com';
const BACKEND_REDIRECT = 'http://127.0.0.1:8976/callback';

let world: ConsoleWorld;
/** The helpers' view of the CLI-started issuer: its URL and administrator credentials. */
let t: TestIssuer;
let ids: Record<string, string>;
/** Everything any page wrote to the browser's console. */
let printed: string[];

beforeAll(async () => {
  world = await startConsoleWorld('console');
  ({ t, ids, printed } = world);
}, 120_000);

afterAll(() => world?.stop());

const newPage = () => openPage(world);
const signInAs = (page: Page, username: string) => signInWorld(world, page, username);

describe('the admin console in Chromium', { timeout: 120_000 }, () => {
  it('a user without a console role is refused after signing in', async () => {
    const { context, page, errors } = await newPage();
    try {
      await signInAs(page, 'carol');
      await page.locator('[data-state="refused"]').waitFor();
      expect(await page.textContent('h1')).toBe('Not an administrator');
      expect(await page.locator('nav').count()).toBe(0);
      await inspect(page, 'refused');
      await page.click('#sign-out');
      await page.waitForURL((url) => !url.pathname.startsWith('/console/') || url.pathname === '/console/');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an administrator manages resources, roles, users, applications and keys by clicking', async () => {
    const { context, page, errors } = await newPage();
    try {
      await signInAs(page, 'root');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      expect(await page.textContent('#who')).toBe('root');
      // Keyboard: the first Tab reaches "Skip to content", which moves focus to the page's content.
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('main');

      // An API resource with two scopes. (Moving to another page puts focus on its content.)
      await nav(page, 'API resources', 'API resources');
      await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('main');
      await page.click('#new-resource-button');
      await page.fill('#resource-name', 'Orders API');
      await page.fill('#resource-indicator', ORDERS);
      await page.getByRole('button', { name: 'Create resource', exact: true }).click();
      await page.getByRole('link', { name: 'Orders API' }).click();
      await page.getByRole('heading', { level: 1, name: 'Orders API' }).waitFor();
      for (const [name, description] of [
        ['read:orders', 'Read orders'],
        ['write:orders', 'Change orders'],
      ]) {
        await page.fill('#scope-name', name!);
        await page.fill('#scope-description', description!);
        await page.getByRole('button', { name: 'Add scope', exact: true }).click();
        await page.locator('#scopes code', { hasText: name! }).waitFor();
      }
      // A refusal is a sentence, not JSON.
      await page.fill('#scope-name', 'read:orders');
      await page.getByRole('button', { name: 'Add scope', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).not.toMatch(/[{}"]/);
      await inspect(page, 'resource');
      await nav(page, 'API resources', 'API resources');
      await inspect(page, 'resources');

      // A user role and an M2M role, each with a scope of the new resource.
      for (const [name, type, scope] of [
        ['order-reader', 'User', 'read:orders'],
        ['orders-service', 'MachineToMachine', 'write:orders'],
      ] as const) {
        await nav(page, 'Roles', 'Roles');
        await page.click('#new-role-button');
        await page.fill('#role-name', name);
        await page.selectOption('#role-type', type);
        await page.getByRole('button', { name: 'Create role', exact: true }).click();
        // The new role's page opens, ready for its scopes.
        await page.getByRole('heading', { level: 1, name }).waitFor();
        await page.locator('#add-scope option', { hasText: scope }).waitFor({ state: 'attached' });
        await page.selectOption('#add-scope', { label: `${scope} (${ORDERS})` });
        await page.getByRole('button', { name: 'Add scope', exact: true }).click();
        await page.locator('#role-scopes code', { hasText: scope }).waitFor();
      }
      await inspect(page, 'role');
      await nav(page, 'Roles', 'Roles');
      await inspect(page, 'roles');

      // A user: create, search, disable and enable, reset the password, a role, a PAT shown once.
      await nav(page, 'Users', 'Users');
      await page.click('#new-user-button');
      await page.fill('#new-username', 'dana');
      await page.fill('#new-email', 'dana@example.com');
      await page.fill('#new-password', 'dana first password');
      await page.getByRole('button', { name: 'Create user', exact: true }).click();
      await page.getByRole('link', { name: 'dana' }).waitFor();
      await page.fill('#user-search', 'DAN'); // searched by the Management API, in any case
      await expect.poll(() => page.locator('#users tbody tr').count()).toBe(1);
      await page.fill('#user-search', 'nobody-like-this');
      await expect.poll(() => page.locator('#users tbody tr').count()).toBe(0);
      await page.fill('#user-search', 'dana@example');
      await expect.poll(() => page.locator('#users tbody tr').count()).toBe(1);
      await inspect(page, 'users');
      await page.getByRole('link', { name: 'dana' }).click();
      await page.getByRole('heading', { level: 1, name: 'dana' }).waitFor();
      ids.dana = new URL(page.url()).pathname.split('/').pop()!;
      await page.click('#toggle-suspension');
      await expect.poll(() => page.textContent('#user-status')).toBe('Disabled');
      await page.click('#toggle-suspension');
      await expect.poll(() => page.textContent('#user-status')).toBe('Active');
      await page.click('#reset-password-button');
      await page.fill('#reset-password-value', PASSWORD);
      await page.getByRole('button', { name: 'Set password', exact: true }).click();
      await page.locator('#reset-password').waitFor({ state: 'detached' });
      await page.selectOption('#add-role', { label: 'order-reader' });
      await page.getByRole('button', { name: 'Add role', exact: true }).click();
      await page.locator('#assigned-roles a', { hasText: 'order-reader' }).waitFor();
      await page.click('#new-pat-button');
      await page.fill('#pat-name', 'CLI testing');
      await page.getByRole('button', { name: 'Create token', exact: true }).click();
      const pat = await page.locator('#secret-value').inputValue();
      expect(pat.length).toBeGreaterThan(30);
      await inspect(page, 'pat-shown-once');
      await page.getByRole('button', { name: 'Done', exact: true }).click();
      await page.locator('#secret').waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: 'CLI testing', exact: true }).waitFor();
      expect(await everything(page)).not.toContain(pat);
      await inspect(page, 'user', true);
      // A second token, shown once and closed with Escape, then revoked after a confirmation.
      await page.click('#new-pat-button');
      await page.fill('#pat-name', 'Short-lived');
      await page.getByRole('button', { name: 'Create token', exact: true }).click();
      const second = await page.locator('#secret-value').inputValue();
      await page.locator('#secret[open]').waitFor();
      await page.keyboard.press('Escape');
      await page.locator('#secret').waitFor({ state: 'detached' });
      expect(await everything(page)).not.toContain(second);
      await page.getByRole('button', { name: 'Revoke Short-lived', exact: true }).click();
      await page.getByRole('button', { name: 'Revoke', exact: true }).click();
      await page.getByRole('cell', { name: 'Short-lived', exact: true }).waitFor({ state: 'detached' });
      const pats = await api(t, await adminToken(t), 'GET', `/users/${ids.dana}/personal-access-tokens`);
      expect(pats.body.items.map((item: { name: string }) => item.name)).toEqual(['CLI testing']);
      const roles = await api(t, await adminToken(t), 'GET', `/users/${ids.dana}/roles`);
      expect(roles.body.items.map((role: { name: string }) => role.name)).toEqual(['order-reader']);

      // Applications: an SPA (no secret), an M2M application (secret shown once, and it works).
      await nav(page, 'Applications', 'Applications');
      await page.click('#new-application-button');
      await page.fill('#app-name', 'Orders SPA');
      await page.selectOption('#app-type', 'SPA');
      await page.fill('#app-redirects', 'https://spa.example.com/callback');
      await page.getByRole('button', { name: 'Create application', exact: true }).click();
      await page.getByRole('link', { name: 'Orders SPA' }).waitFor();
      expect(await page.locator('#secret').count()).toBe(0);
      await page.click('#new-application-button');
      await page.fill('#app-name', 'Orders worker');
      await page.selectOption('#app-type', 'MachineToMachine');
      await page.getByRole('button', { name: 'Create application', exact: true }).click();
      const secret = await page.locator('#secret-value').inputValue();
      const workerId = (await page.textContent('#secret-title'))!.replace('Client secret of ', '');
      await page.getByRole('button', { name: 'Done', exact: true }).click();
      await page.locator('#secret').waitFor({ state: 'detached' });
      expect(await everything(page)).not.toContain(secret);
      await inspect(page, 'applications');
      await page.getByRole('link', { name: 'Orders worker' }).click();
      await page.getByRole('heading', { level: 1, name: 'Orders worker' }).waitFor();
      await page.selectOption('#add-role', { label: 'orders-service' });
      await page.getByRole('button', { name: 'Add role', exact: true }).click();
      await page.locator('#assigned-roles a', { hasText: 'orders-service' }).waitFor();
      const issued = await clientCredentials(t.baseUrl, workerId, secret, { resource: ORDERS });
      expect(issued.status).toBe(200);
      expect(issued.body.scope).toBe('write:orders');
      await inspect(page, 'application');
      // The token-exchange switch of the SPA.
      await nav(page, 'Applications', 'Applications');
      await page.getByRole('link', { name: 'Orders SPA' }).click();
      await page.getByRole('heading', { level: 1, name: 'Orders SPA' }).waitFor();
      await page.check('#edit-exchange');
      await page.check('#edit-dpop');
      await page.fill('#edit-redirects', 'https://spa.example.com/callback\nhttps://spa.example.com/other');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect.poll(() => page.textContent('#application-settings [role=status]')).toBe('Saved.');
      const spaId = (await page.textContent('#client-id'))!;
      expect((await api(t, await adminToken(t), 'GET', `/applications/${spaId}`)).body).toMatchObject({
        tokenExchangeEnabled: true,
        dpopBoundAccessTokens: true,
        redirectUris: ['https://spa.example.com/callback', 'https://spa.example.com/other'],
      });
      // A bad redirect URI is refused with a sentence naming the field.
      await page.fill('#edit-redirects', 'not a url');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Redirect URI 1 must be an absolute URI without a fragment.');

      // Signing keys: rotate after a confirmation (Cancel first changes nothing).
      await nav(page, 'Signing keys', 'Signing keys');
      await expect.poll(() => page.locator('#keys tbody tr').count()).toBe(1);
      await page.click('#rotate-key');
      await page.getByRole('button', { name: 'Cancel', exact: true }).click();
      expect(await page.locator('#keys tbody tr').count()).toBe(1);
      await page.click('#rotate-key');
      await inspect(page, 'keys-confirm');
      await page.getByRole('button', { name: 'Rotate now', exact: true }).click();
      await expect.poll(() => page.locator('#keys tbody tr').count()).toBe(2);
      expect(await page.locator('#keys tr[data-status="active"]').count()).toBe(1);
      await inspect(page, 'keys');
      expect(errors).toEqual([]);
      for (const value of [pat, second, secret]) expect(printed.join('\n')).not.toContain(value);
    } finally {
      await context.close();
    }
  });

  it('an impersonation run through the API appears in the timeline with its context, filterable, linking to the users', async () => {
    const admin = await adminToken(t);
    // The integrator's support backend: may exchange tokens; sam signs in to it (the actor).
    const backend = await api(t, admin, 'POST', '/applications', {
      name: 'Support backend',
      type: 'Traditional',
      redirectUris: [BACKEND_REDIRECT],
      tokenExchangeEnabled: true,
    });
    const credentials = { clientId: backend.body.clientId, clientSecret: backend.body.clientSecret };
    const { verifier, challenge } = pkce();
    const signedIn = await signIn(new Agent(), {
      baseUrl: t.baseUrl,
      clientId: credentials.clientId,
      redirectUri: BACKEND_REDIRECT,
      scope: 'openid',
      identifier: 'sam',
      password: PASSWORD,
      codeChallenge: challenge,
    });
    const session = await tokenRequest(
      t.baseUrl,
      {
        grant_type: 'authorization_code',
        code: codeOf(signedIn),
        code_verifier: verifier,
        redirect_uri: BACKEND_REDIRECT,
      },
      credentials,
    );
    const minted = await api(t, admin, 'POST', '/subject-tokens', {
      userId: ids.dana,
      actorId: ids.sam,
      context: { ticket: 'SUP-1234', reason: 'Cannot see her invoices' },
    });
    expect(minted.status).toBe(201);
    const params = {
      grant_type: TOKEN_EXCHANGE,
      subject_token: minted.body.subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      actor_token: session.body.access_token,
      actor_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
      scope: 'read:orders',
    };
    expect((await tokenRequest(t.baseUrl, params, credentials)).status).toBe(200);
    expect((await tokenRequest(t.baseUrl, params, credentials)).status).toBe(400); // a replay: refused

    const { context, page, errors } = await newPage();
    try {
      await signInAs(page, 'root');
      const timeline = page.locator('#timeline > li');
      await expect.poll(() => timeline.count()).toBe(3);
      const [refused, exchanged, created] = await timeline.all();
      expect(await refused!.getAttribute('data-type')).toBe('token_exchange.failed');
      expect(await exchanged!.getAttribute('data-type')).toBe('token_exchange.succeeded');
      expect(await created!.getAttribute('data-type')).toBe('subject_token.created');
      // The refusal's reason as a sentence, not its code (issue #29 item 8).
      expect(await refused!.locator('p.reason').textContent()).toBe(
        'The subject token had been used already: each one is exchanged once.',
      );
      expect(await refused!.textContent()).not.toContain('subject_token_consumed');
      // People and applications by name, with their ids.
      await exchanged!.getByRole('link', { name: 'sam', exact: true }).waitFor();
      await exchanged!.getByText('Support backend').waitFor();
      const text = (await exchanged!.textContent())!;
      for (const expected of [
        ids.sam,
        ids.dana,
        credentials.clientId,
        ORDERS,
        'read:orders',
        'SUP-1234',
        'Cannot see her invoices',
      ])
        expect(text).toContain(expected);
      await inspect(page, 'activity', true);

      // Filter by actor, then by a user who was never impersonated.
      await page.fill('#filter-actor', ids.sam!);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('actorId') === ids.sam);
      await expect.poll(() => timeline.count()).toBe(3);
      await page.fill('#filter-actor', '');
      await page.fill('#filter-user', ids.root!);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByText('No impersonation activity matches these filters').waitFor();
      await page.getByRole('link', { name: 'Clear' }).click();
      await expect.poll(() => timeline.count()).toBe(3);
      // A time window that ends before the impersonation.
      await page.fill('#filter-until', '2020-01-01T00:00');
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.getByText('No impersonation activity matches these filters').waitFor();
      await page.getByRole('link', { name: 'Clear' }).click();
      await expect.poll(() => timeline.count()).toBe(3);

      // Each entry links to the users involved.
      await exchanged!.getByRole('link', { name: 'dana', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'dana' }).waitFor();
      await exchanged!.page().getByRole('link', { name: 'Impersonations by this user' }).waitFor();

      // More than a page of events: the newest 100 first, then the older ones.
      for (let i = 0; i < 98; i++)
        expect((await api(t, admin, 'POST', '/subject-tokens', { userId: ids.carol })).status).toBe(201);
      await nav(page, 'Activity', 'Impersonation activity');
      await expect.poll(() => timeline.count()).toBe(100);
      expect(await page.getByRole('navigation', { name: 'Pages' }).textContent()).toContain('Page 1 of 2');
      await page.getByRole('link', { name: 'Older →' }).click();
      await expect.poll(() => timeline.count()).toBe(1);
      expect(await timeline.first().getAttribute('data-type')).toBe('subject_token.created');
      expect(await timeline.first().textContent()).toContain('SUP-1234');
      await page.getByRole('link', { name: '← Newer' }).click();
      await expect.poll(() => timeline.count()).toBe(100);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a console viewer sees every page and no control that changes anything', async () => {
    const { context, page, errors } = await newPage();
    try {
      await signInAs(page, 'auditor');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      expect(await page.textContent('#who')).toBe('auditor (read-only)');
      const none = async (selector: string) => expect(await page.locator(selector).count(), selector).toBe(0);
      await nav(page, 'Users', 'Users');
      await none('#new-user-button');
      await page.getByRole('link', { name: 'dana' }).click();
      await page.getByRole('cell', { name: 'CLI testing', exact: true }).waitFor();
      for (const selector of [
        '#toggle-suspension',
        '#reset-password-button',
        '#new-pat-button',
        '#add-role',
        '#pats button',
        '#delete-button',
        '#custom-data button',
      ])
        await none(selector);
      await nav(page, 'Applications', 'Applications');
      await none('#new-application-button');
      await page.getByRole('link', { name: 'Orders worker' }).click();
      await page.getByRole('heading', { level: 1, name: 'Orders worker' }).waitFor();
      expect(await page.locator('#edit-exchange').isDisabled()).toBe(true);
      expect(await page.locator('#edit-dpop').isDisabled()).toBe(true);
      for (const selector of [
        '#rotate-secret',
        '#add-role',
        '#application-settings button',
        '#delete-button',
        '#custom-data button',
      ])
        await none(selector);
      await nav(page, 'API resources', 'API resources');
      await none('#new-resource-button');
      await page.getByRole('link', { name: 'Orders API' }).click();
      await page.locator('#scopes code', { hasText: 'read:orders' }).waitFor();
      for (const selector of ['#new-scope', '#scopes button', '#resource-settings', '#delete-button'])
        await none(selector);
      await nav(page, 'Roles', 'Roles');
      await none('#new-role-button');
      await page.getByRole('link', { name: 'order-reader' }).click();
      await page.locator('#role-scopes code', { hasText: 'read:orders' }).waitFor();
      for (const selector of ['#add-scope', '#role-scopes button', '#delete-button']) await none(selector);
      await nav(page, 'Signing keys', 'Signing keys');
      await page.locator('#keys tbody tr').first().waitFor();
      await none('#rotate-key');
      await inspect(page, 'keys-read-only');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
