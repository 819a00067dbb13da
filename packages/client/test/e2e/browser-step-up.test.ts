/**
 * E10, end to end in Chromium (RFC 9470 step-up): the browser build signs in with a password through
 * the real issuer; an API that needs a second factor refuses its token with the step-up challenge; the
 * page reads the challenge with `stepUpChallenge()` and signs in again with `signIn({ acrValues,
 * maxAge })`; the issuer asks for the password, then enrols an authenticator app (TOTP) on its
 * sign-in page — the test computes the code from the key the page shows, never printing it — and the
 * new token is accepted. The issuer's code pages pass axe-core (no serious or critical violation).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createVerifier } from '@gatehouse/core';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, StepUpChallenge } from '../../src/index.js';
import { startApi, type TestApi } from '../helpers/api.js';
import { type BrowserWorld, openPage, startBrowserWorld, status } from '../helpers/browser.js';
import type { PageServer } from '../helpers/page-server.js';
import { ORDERS, PASSWORD, type World } from '../helpers/world.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const MFA = 'urn:gatehouse:acr:mfa';
const PASSWORD_ACR = 'urn:gatehouse:acr:password';

let setUp: BrowserWorld;
let world: World;
let app: PageServer;
let api: TestApi;
let browser: Browser;

/** What the page exposes (the test's tsconfig has no DOM types). */
interface PageGlobals {
  gatehouse: Client;
}

beforeAll(async () => {
  setUp = await startBrowserWorld(
    { name: 'Payments', clientId: 'payments-spa' },
    { resources: [ORDERS], scopes: ['read:orders'] },
  );
  ({ browser, app, world } = setUp);
  // The API wants a second factor within the last 5 minutes (RFC 9470).
  api = await startApi(world.baseUrl, ORDERS, {}, app.origin, { acrValues: [MFA], maxAge: 300 });
});

afterAll(async () => {
  await api?.close();
  await setUp?.close();
});

/** Serious or critical axe-core violations of the page as it is now. */
async function axe(page: Page): Promise<string[]> {
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(AXE);
  const violations = await page.evaluate<{ id: string; impact: string; target: string }[]>(
    'axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, target: v.nodes[0].target.join(" ") })))',
  );
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.target}`);
}

/** Call the API from the page with the client; the answer's status, body and step-up challenge. */
function callApi(page: Page) {
  // Written as text: the page imports the browser build itself (vitest would rewrite an `import()`).
  return page.evaluate<{ status: number; body: Record<string, unknown>; challenge: StepUpChallenge | null }>(
    `(async () => {
      const { stepUpChallenge } = await import('/client.js');
      const res = await window.gatehouse.fetch(${JSON.stringify(ORDERS)}, ${JSON.stringify(`${api.url}/payments`)});
      return { status: res.status, body: await res.json(), challenge: stepUpChallenge(res) ?? null };
    })()`,
  );
}

async function fillPassword(page: Page): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(`${world.baseUrl}/interaction/`));
  expect(await page.title()).toBe('Sign in');
  await page.fill('#identifier', 'alice');
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
}

describe('E10: step-up in Chromium, through the client SDK', () => {
  it('E10: password token refused with the challenge; signIn({ acrValues, maxAge }) with a TOTP step; new token accepted', async () => {
    const { context, page, errors } = await openPage(browser);

    // 1. Password sign-in.
    await page.goto(`${app.origin}/`);
    await expect.poll(() => status(page).textContent()).toBe('signed-out');
    await page.click('#sign-in');
    await fillPassword(page);
    await page.waitForURL(`${app.origin}/`);
    await expect.poll(() => status(page).textContent()).toMatch(/^signed-in:/);

    // 2. The API refuses the password-level token with RFC 9470's challenge.
    const refused = await callApi(page);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('insufficient_user_authentication');
    expect(refused.challenge).toEqual({ acrValues: [MFA], maxAge: 300 } satisfies StepUpChallenge);
    const before = await page.evaluate(
      (r) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(r),
      ORDERS,
    );
    const issuer = `${world.baseUrl}/oidc`;
    const weak = await createVerifier({ issuer, audience: ORDERS, strict: true }).verify(before);
    expect(weak.claims.acr).toBe(PASSWORD_ACR);

    // 3. Sign in again with what the challenge names: the issuer asks for the password, then a code.
    await page.evaluate(
      (challenge) =>
        (globalThis as unknown as PageGlobals).gatehouse.signIn({
          acrValues: challenge.acrValues,
          maxAge: challenge.maxAge,
        }),
      refused.challenge!,
    );
    await fillPassword(page);
    await page.getByRole('heading', { name: 'Set up your authenticator app' }).waitFor();
    expect(await axe(page), 'enrolment page').toEqual([]);
    const uri = (await page.locator('#totp-uri').textContent()) ?? '';
    expect(uri.startsWith('otpauth://totp/')).toBe(true);
    // The key stays in this test: never printed, not even in an assertion message.
    const key = ((await page.locator('#totp-key').textContent()) ?? '').replaceAll(' ', '');
    expect(/^[A-Z2-7]{32}$/.test(key)).toBe(true);
    const code = (offset = 0) =>
      TOTP.generate({ secret: Secret.fromBase32(key), timestamp: Date.now() + offset });

    // A wrong code first: the page says so, keeps the same key, and still passes axe.
    await page.fill('#code', code(-3_600_000));
    await page.click('button[type=submit]');
    await page.getByRole('alert').waitFor();
    expect(await axe(page), 'code page with an error').toEqual([]);
    expect(((await page.locator('#totp-key').textContent()) ?? '').replaceAll(' ', '') === key).toBe(true);

    await page.fill('#code', code());
    await page.click('button[type=submit]');
    await page.waitForURL(`${app.origin}/`);
    await expect.poll(() => status(page).textContent()).toMatch(/^signed-in:/);

    // 4. The new token carries the second factor and a fresh auth_time: the API accepts it.
    const accepted = await callApi(page);
    expect(accepted.status).toBe(200);
    expect(accepted.body.acr).toBe(MFA);
    expect(accepted.challenge).toBeNull();
    const after = await page.evaluate(
      (r) => (globalThis as unknown as PageGlobals).gatehouse.getAccessToken(r),
      ORDERS,
    );
    const strong = await createVerifier({ issuer, audience: ORDERS, strict: true }).verify(after, {
      acrValues: [MFA],
      maxAge: 300,
    });
    expect(strong.subject).toBe(world.users.alice);
    expect(typeof strong.claims.auth_time).toBe('number');
    expect(errors).toEqual([]);
    await context.close();
  });
});
