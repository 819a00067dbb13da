/**
 * Headless Chromium (playwright-core, the system's /usr/bin/chromium) and the issuer's real sign-in page.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { PASSWORD } from './issuer.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launch Chromium headless, without sandbox or GPU, and without any network of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}

/**
 * On the issuer's sign-in page (`{issuerBase}/interaction/…`, waited for), sign in as `username` and
 * wait until the browser has left the issuer for `landing` (a URL prefix).
 */
export async function signInOnPage(
  page: Page,
  issuerBase: string,
  username: string,
  landing: string,
): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(`${issuerBase}/interaction/`));
  await page.fill('#identifier', username);
  await page.fill('#password', PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForURL((url) => url.href.startsWith(landing));
}
