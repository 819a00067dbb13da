/**
 * The impersonation timeline in Chromium, walked across pages: 230 subject tokens, each with its own
 * context (ticket, reason), for two users by two actors. Page after page ("Older →", "← Newer"), with
 * no filter, filtered by user (the filter stays on every page), by user and actor, and by a time window
 * given in the address, every entry shows its own event's context, subject and actor — in order, newest
 * first, none missing or repeated. axe-core checks the filtered timeline.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleWorld,
  inspect,
  newPage,
  signInAs,
  startConsoleWorld,
} from '../helpers/console-browser.js';
import { adminToken, api } from '../helpers/issuer.js';

/** How many subject tokens the set-up creates; the first `BEFORE` before the time window opens. */
const EVENTS = 230;
const BEFORE = 120;

let world: ConsoleWorld;
/** The time window's start: after event `BEFORE - 1`, before event `BEFORE`. */
let since: string;

/** Who event `i` impersonates, who acts, and its context. */
const subjectOf = (i: number) => (i % 3 === 0 ? 'carol' : 'dana');
const actorOf = (i: number) => (i % 2 === 0 ? 'sam' : 'root');
const contextOf = (i: number) => `ticket=SUP-${1000 + i}; reason=Case ${i}`;

beforeAll(async () => {
  world = await startConsoleWorld('console-timeline');
  const { t, ids } = world;
  const admin = await adminToken(t);
  ids.dana = (await api(t, admin, 'POST', '/users', { username: 'dana' })).body.id;
  const mint = async (i: number) => {
    const res = await api(t, admin, 'POST', '/subject-tokens', {
      userId: ids[subjectOf(i)],
      actorId: ids[actorOf(i)],
      context: { ticket: `SUP-${1000 + i}`, reason: `Case ${i}` },
    });
    expect(res.status).toBe(201);
  };
  // One after the other: the timeline's order is the order of creation.
  for (let i = 0; i < BEFORE; i++) await mint(i);
  const last = await api(t, admin, 'GET', '/audit-events?pageSize=1');
  // Times are whole seconds: the window opens at the next second, and the rest are created after it.
  const opens = Date.parse(last.body.items[0].createdAt) + 1000;
  since = new Date(opens).toISOString();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, opens - Date.now()) + 50));
  for (let i = BEFORE; i < EVENTS; i++) await mint(i);
}, 180_000);

afterAll(() => world?.stop());

/** Each timeline entry as `subject / actor / context` (names once the page has read them). */
function entries(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`[...document.querySelectorAll('#timeline > li')].map((li) => {
    const facts = [...li.querySelectorAll(':scope > dl.facts > div')];
    const fact = (label) => facts.find((div) => div.querySelector('dt').textContent === label);
    const person = (label) => fact(label).querySelector('dd a')?.textContent ?? '—';
    const context = [...fact('Context').querySelectorAll('dl.context > div')]
      .map((div) => div.querySelector('dt').textContent + '=' + div.querySelector('dd').textContent)
      .join('; ');
    return person('As user') + ' / ' + person('Actor') + ' / ' + context;
  })`);
}

/** What the timeline shows for the events `selected`, newest first, page by page (100 a page). */
function expectedPages(selected: (i: number) => boolean): string[][] {
  const all = Array.from({ length: EVENTS }, (_, i) => EVENTS - 1 - i)
    .filter(selected)
    .map((i) => `${subjectOf(i)} / ${actorOf(i)} / ${contextOf(i)}`);
  const pages: string[][] = [];
  for (let start = 0; start < all.length; start += 100) pages.push(all.slice(start, start + 100));
  return pages;
}

/** Walk from the current (first) page to the last with "Older →", then back with "← Newer". */
async function walk(page: Page, pages: string[][], filters: Record<string, string>): Promise<void> {
  const pager = page.getByRole('navigation', { name: 'Pages' });
  for (const [index, expected] of pages.entries()) {
    if (index > 0) await pager.getByRole('link', { name: 'Older →' }).click();
    await expect.poll(() => entries(page), { timeout: 15_000 }).toEqual(expected);
    const url = new URL(page.url());
    for (const [name, value] of Object.entries(filters)) expect(url.searchParams.get(name), name).toBe(value);
    expect(url.searchParams.get('page')).toBe(index === 0 ? null : String(index + 1));
    if (pages.length > 1) {
      expect(await pager.textContent()).toContain(`Page ${index + 1} of ${pages.length}`);
      expect(await pager.getByRole('link', { name: 'Older →' }).count()).toBe(
        index < pages.length - 1 ? 1 : 0,
      );
    } else expect(await pager.count()).toBe(0);
  }
  for (let index = pages.length - 2; index >= 0; index--) {
    await pager.getByRole('link', { name: '← Newer' }).click();
    await expect.poll(() => entries(page), { timeout: 15_000 }).toEqual(pages[index]);
  }
}

describe('the impersonation timeline across pages', { timeout: 180_000 }, () => {
  it('shows every entry with its own context, page after page, unfiltered and filtered', async () => {
    const { ids } = world;
    const { context, page, errors } = await newPage(world);
    try {
      await signInAs(world, page, 'root');
      await page.getByRole('heading', { level: 1, name: 'Impersonation activity' }).waitFor();
      const all = expectedPages(() => true);
      expect(all.map((p) => p.length)).toEqual([100, 100, 30]);
      await walk(page, all, {});

      // By user, with the form: the filter stays in the address of every page.
      await page.fill('#filter-user', ids.dana!);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      const dana = expectedPages((i) => subjectOf(i) === 'dana');
      expect(dana.map((p) => p.length)).toEqual([100, 53]);
      await walk(page, dana, { userId: ids.dana! });
      await inspect(page, 'activity-filtered');

      // By user and actor: one page.
      await page.fill('#filter-actor', ids.sam!);
      await page.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('actorId') === ids.sam);
      const byBoth = expectedPages((i) => subjectOf(i) === 'dana' && actorOf(i) === 'sam');
      expect(byBoth.map((p) => p.length)).toEqual([76]);
      await walk(page, byBoth, { userId: ids.dana!, actorId: ids.sam! });

      // A time window, linked to: only what happened since, two pages; the form shows the window.
      await page.goto(`${world.t.baseUrl}/console/activity?since=${encodeURIComponent(since)}`);
      const recent = expectedPages((i) => i >= BEFORE);
      expect(recent.map((p) => p.length)).toEqual([100, 10]);
      await walk(page, recent, { since });
      expect(await page.inputValue('#filter-since')).not.toBe('');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
