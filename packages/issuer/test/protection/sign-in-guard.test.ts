/**
 * Sign-in throttling and lockout through the real sign-in form over HTTP, on every driver (on
 * PostgreSQL two instances behind a round-robin balancer, so consecutive attempts land on different
 * instances and the counts must be shared): lockout at the threshold with the same answer for an
 * unknown account, progressive delays, the right password refused while locked and accepted after,
 * parallel guesses counted, and audit events that name the identifier and the address but never the
 * password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MESSAGES } from '../../src/interactions/routes.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { alertOf, openSignInForm } from '../helpers/sign-in.js';

const LOCK_SECONDS = 2;
const DELAY_MS = 100;
const LOCKED = /^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/;

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver, {
      signIn: {
        maxFailures: 4,
        maxFailuresPerAddress: 10_000,
        delayAfterPerAddress: 10_000,
        lockDuration: LOCK_SECONDS,
        delayAfter: 2,
        delay: DELAY_MS,
        maxDelay: 4 * DELAY_MS,
      },
    });
    await loadWorld(t);
    await t.issuer.seed({
      users: ['carol', 'dan', 'erin', 'frank'].map((username) => ({
        username,
        email: `${username}@example.com`,
        password: PASSWORD,
      })),
    });
  });
  afterAll(() => t.close());

  /** Status, message and `Retry-After` of `count` wrong attempts at `identifier`, in order. */
  async function guess(identifier: string, count: number) {
    const form = await openSignInForm(t.baseUrl);
    const answers: { status: number; message: string | undefined; retryAfter: string | null; ms: number }[] =
      [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await form.attempt(identifier, `wrong password ${i}`);
      answers.push({
        status: res.status,
        message: alertOf(res),
        retryAfter: res.headers.get('retry-after'),
        ms: performance.now() - started,
      });
    }
    return { form, answers };
  }

  it('B53: the account is locked at the threshold, and an unknown account is answered exactly alike', async () => {
    const known = await guess('carol', 6);
    const unknown = await guess('nobody-here@example.com', 6);
    for (const { answers } of [known, unknown]) {
      expect(answers.slice(0, 3).map((a) => [a.status, a.message])).toEqual(
        Array(3).fill([401, LOGIN_MESSAGES.invalid]),
      );
      for (const locked of answers.slice(3)) {
        expect(locked.status).toBe(429);
        expect(locked.message).toMatch(LOCKED);
        expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(locked.retryAfter)).toBeLessThanOrEqual(LOCK_SECONDS);
      }
    }
    // Progressive delays: the third and fourth failures waited `delay`, then twice that.
    expect(known.answers[2]!.ms).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(known.answers[3]!.ms).toBeGreaterThanOrEqual(2 * DELAY_MS - 5);
  });

  it('B54: the right password is refused while the account is locked and accepted once the lock ends', async () => {
    const { form } = await guess('dan', 4);
    const refused = await form.attempt('dan', PASSWORD);
    expect(refused.status).toBe(429);
    expect(alertOf(refused)).toMatch(LOCKED);
    expect(refused.location).toBeUndefined();
    // Another form (a new interaction, the email instead of the username) is locked as well.
    const other = await openSignInForm(t.baseUrl);
    expect((await other.attempt('DAN@example.com', PASSWORD)).status).toBe(429);

    await new Promise((resolve) =>
      setTimeout(resolve, (Number(refused.headers.get('retry-after')) + 1) * 1000),
    );
    const accepted = await form.attempt('dan', PASSWORD);
    expect(accepted.status).toBe(303);
    expect(accepted.location).toContain('/oidc/auth/');
    // A success clears the account's count: three more mistakes are answered at full strength again.
    const after = await guess('dan', 3);
    expect(after.answers.map((a) => a.status)).toEqual([401, 401, 401]);
  });

  it('B55: parallel guesses are all counted: exactly maxFailures passwords are checked', async () => {
    const forms = await Promise.all(Array.from({ length: 5 }, () => openSignInForm(t.baseUrl)));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => forms[i % forms.length]!.attempt('erin', `parallel ${i}`)),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(17);
    const admin = await adminToken(t);
    const erin = (await t.issuer.store.users.findByLogin('erin'))!.id;
    const events = await api(
      t,
      admin,
      'GET',
      `/audit-events?type=sign_in.failed&userId=${erin}&pageSize=100`,
    );
    const reasons = events.body.items.map((event: { reason: string }) => event.reason);
    expect(reasons.filter((reason: string) => reason === 'invalid_credentials')).toHaveLength(4);
    expect(reasons.filter((reason: string) => reason === 'locked')).toHaveLength(16);
    // The right password, in parallel with the flood's end, is refused too.
    expect((await forms[0]!.attempt('erin', PASSWORD)).status).toBe(429);
  });

  it('B56: failed and locked sign-ins are audit events with the identifier and client address, never the password', async () => {
    await guess('frank', 5);
    const admin = await adminToken(t);
    const frank = (await t.issuer.store.users.findByLogin('frank'))!.id;
    const failed = await api(t, admin, 'GET', `/audit-events?type=sign_in.failed&userId=${frank}`);
    expect(failed.body.items).toHaveLength(5);
    for (const event of failed.body.items) {
      expect(event.details).toEqual({ identifier: 'frank', address: '127.0.0.1' });
      expect(event.applicationId).toBe('web-app');
    }
    expect(failed.body.items.map((event: { reason: string }) => event.reason).sort()).toEqual([
      'invalid_credentials',
      'invalid_credentials',
      'invalid_credentials',
      'invalid_credentials',
      'locked',
    ]);
    const locked = await api(t, admin, 'GET', `/audit-events?type=sign_in.locked&userId=${frank}`);
    expect(locked.body.items).toHaveLength(1);
    expect(locked.body.items[0]).toMatchObject({
      reason: 'account',
      details: { identifier: 'frank', address: '127.0.0.1' },
    });
    const unknown = await api(t, admin, 'GET', '/audit-events?type=sign_in.locked&pageSize=100');
    expect(
      unknown.body.items.some(
        (event: { userId: string | null; details: { identifier: string } }) =>
          event.userId === null && event.details.identifier === 'nobody-here@example.com',
      ),
    ).toBe(true);
    const everything = JSON.stringify([failed.body, locked.body, unknown.body]) + t.logs.text;
    expect(everything).not.toContain('wrong password');
    expect(everything).not.toContain('parallel 1');
    expect(everything).not.toContain(PASSWORD);
  });
});
