/**
 * Sign-in throttling and lockout through the real sign-in form over HTTP, on every driver (on
 * PostgreSQL two instances behind a round-robin balancer, so consecutive attempts land on different
 * instances and the counts must be shared). Client addresses are told apart the way a trusted proxy
 * tells them (`proxy.hops: 1`, the right-most `X-Forwarded-For` entry; documentation addresses that are
 * never connected to). Locks fall on a client address only — out of one account, or out of every
 * account — and an account is only slowed down (F12): the right password from another address signs
 * in, a guesser with N addresses gets N × the per-pair allowance, an address spraying many accounts
 * is slowed down and then locked. Also: the same answer for an unknown account, progressive delays,
 * the right password refused from the locked address and accepted after, parallel guesses counted,
 * and audit events that name the identifier and the address but never the password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MESSAGES } from '../../src/interactions/routes.js';
import type { AgentResponse } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD } from '../helpers/fixtures.js';
import { adminToken, api, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { alertOf, openSignInForm } from '../helpers/sign-in.js';

/** Long enough for every step a test takes while a lock holds (locks end on whole seconds). */
const LOCK_SECONDS = 45;
/**
 * For the test that waits for a lock to end: long enough that the steps taken while it holds finish
 * inside it on a loaded machine (sign-ins hash on low-priority threads), short enough to wait out.
 */
const SHORT_LOCK_SECONDS = 10;
const DELAY_MS = 100;
const MAX_DELAY_MS = 4 * DELAY_MS;
/** `signIn.maxFailuresPerAccountAndAddress` of these tests. */
const PER_PAIR = 4;
/** `signIn.delayAfterPerAddress` and `signIn.maxFailuresPerAddress` of these tests. */
const ADDRESS_FREE = 24;
const PER_ADDRESS = 26;
const LOCKED = /^Too many failed sign-in attempts from your network\. Try again in (\d+) seconds?\.$/;

interface Answer {
  readonly status: number;
  readonly message: string | undefined;
  readonly retryAfter: string | null;
  readonly ms: number;
  readonly location: string | undefined;
}

/** A new sign-in form whose attempts come from client `address` (forwarded by the trusted proxy). */
async function formFrom(t: TestIssuer, address: string) {
  const form = await openSignInForm(t.baseUrl);
  return async (identifier: string, password: string, forwarded = address): Promise<Answer> => {
    const started = performance.now();
    const res: AgentResponse = await form.attempt(identifier, password, { 'x-forwarded-for': forwarded });
    return {
      status: res.status,
      message: alertOf(res),
      retryAfter: res.headers.get('retry-after'),
      ms: performance.now() - started,
      location: res.location,
    };
  };
}

/** `count` wrong attempts at `identifier` from `address`, in order. */
async function guess(t: TestIssuer, address: string, identifier: string, count: number) {
  const attempt = await formFrom(t, address);
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await attempt(identifier, `wrong password ${i}`));
  return { attempt, answers };
}

/** The truthful lock answer: 429, the lock message, and the same seconds in it as in `Retry-After`. */
function expectLocked(answer: Answer, lockSeconds: number): void {
  expect(answer.status).toBe(429);
  expect(answer.message).toMatch(LOCKED);
  const seconds = Number(answer.retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(lockSeconds);
  expect(Number(LOCKED.exec(answer.message!)![1])).toBe(seconds);
}

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver, {
      proxy: { hops: 1 },
      signIn: {
        maxFailuresPerAccountAndAddress: PER_PAIR,
        maxFailuresPerAddress: PER_ADDRESS,
        delayAfterPerAddress: ADDRESS_FREE,
        lockDuration: LOCK_SECONDS,
        delayAfter: 2,
        delay: DELAY_MS,
        maxDelay: MAX_DELAY_MS,
      },
    });
    await loadWorld(t);
    await t.issuer.seed({
      users: ['carol', 'erin', 'frank', 'grace', 'heidi', 'ivan'].map((username) => ({
        username,
        email: `${username}@example.com`,
        password: PASSWORD,
      })),
    });
  });
  afterAll(() => t?.close());

  const userId = async (username: string) => (await t.issuer.store.users.findByLogin(username))!.id;

  async function auditOf(type: string, user: string) {
    const events = await api(
      t,
      await adminToken(t),
      'GET',
      `/audit-events?type=${type}&userId=${await userId(user)}&pageSize=100`,
    );
    return events.body.items as {
      reason: string;
      applicationId: string | null;
      details: Record<string, unknown>;
    }[];
  }

  it('B53: the address is locked out of the account at the threshold, and an unknown account is answered exactly alike', async () => {
    const known = await guess(t, '203.0.113.1', 'carol', 6);
    const unknown = await guess(t, '203.0.113.2', 'nobody-here@example.com', 6);
    for (const { answers } of [known, unknown]) {
      expect(answers.slice(0, 3).map((a) => [a.status, a.message])).toEqual(
        Array(3).fill([401, LOGIN_MESSAGES.invalid]),
      );
      for (const locked of answers.slice(3)) expectLocked(locked, LOCK_SECONDS);
    }
    // Progressive delays: the third and fourth failures waited `delay`, then twice that.
    expect(known.answers[2]!.ms).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(known.answers[3]!.ms).toBeGreaterThanOrEqual(2 * DELAY_MS - 5);
  });

  it('B55: parallel guesses are all counted: exactly the allowance of passwords is checked', async () => {
    const forms = await Promise.all(Array.from({ length: 5 }, () => formFrom(t, '203.0.113.4')));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => forms[i % forms.length]!('erin', `parallel ${i}`)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(PER_PAIR - 1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - (PER_PAIR - 1));
    const reasons = (await auditOf('sign_in.failed', 'erin')).map((event) => event.reason);
    expect(reasons.filter((reason) => reason === 'invalid_credentials')).toHaveLength(PER_PAIR);
    expect(reasons.filter((reason) => reason === 'locked')).toHaveLength(20 - PER_PAIR);
    // The right password from the same address, in parallel with the flood's end, is refused too.
    expect((await forms[0]!('erin', PASSWORD)).status).toBe(429);
  });

  it('B56: failed and locked sign-ins are audit events with the identifier and client address, never the password', async () => {
    await guess(t, '203.0.113.6', 'frank', 5);
    const failed = await auditOf('sign_in.failed', 'frank');
    expect(failed).toHaveLength(5);
    for (const event of failed) {
      expect(event.details).toEqual({ identifier: 'frank', address: '203.0.113.6' });
      expect(event.applicationId).toBe('web-app');
    }
    expect(failed.map((event) => event.reason).sort()).toEqual([
      ...Array(PER_PAIR).fill('invalid_credentials'),
      'locked',
    ]);
    const locked = await auditOf('sign_in.locked', 'frank');
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({
      reason: 'account_and_address',
      details: { identifier: 'frank', address: '203.0.113.6' },
    });
    const admin = await adminToken(t);
    const unknown = await api(t, admin, 'GET', '/audit-events?type=sign_in.locked&pageSize=100');
    // F22: an identifier that names no account (it may be a password typed into the field) is not kept.
    expect(
      unknown.body.items.some(
        (event: { userId: string | null; details: { identifier: string | null } }) =>
          event.userId === null && event.details.identifier === null,
      ),
    ).toBe(true);
    expect(JSON.stringify(unknown.body)).not.toContain('nobody-here@example.com');
    const everything = JSON.stringify([failed, locked, unknown.body]) + t.logs.text;
    expect(everything).not.toContain('wrong password');
    expect(everything).not.toContain('parallel 1');
    expect(everything).not.toContain(PASSWORD);
  });

  it('F12: wrong passwords from one address lock that address out of the account; the right password from another address still signs in', async () => {
    const A = '198.51.100.1';
    const { attempt: fromA, answers } = await guess(t, A, 'grace', PER_PAIR);
    expect(answers.map((answer) => answer.status)).toEqual([...Array(PER_PAIR - 1).fill(401), 429]);
    expectLocked(answers.at(-1)!, LOCK_SECONDS);
    expectLocked(await fromA('grace', PASSWORD), LOCK_SECONDS);
    // A value the client wrote left of the proxy's entry changes nothing: the address is still A.
    expectLocked(await fromA('grace', PASSWORD, `192.0.2.77, ${A}`), LOCK_SECONDS);

    const fromB = await formFrom(t, '198.51.100.2');
    const signedIn = await fromB('grace', PASSWORD);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toContain('/oidc/auth/');
    // B's success does not lift A's lock, and A is locked out of this account only.
    expectLocked(await fromA('grace', PASSWORD), LOCK_SECONDS);
    expect((await (await formFrom(t, A))('alice', PASSWORD)).status).toBe(303);

    const locks = await auditOf('sign_in.locked', 'grace');
    expect(locks).toHaveLength(1);
    expect(locks[0]).toMatchObject({ reason: 'account_and_address', details: { address: A } });
  });

  it('F12: a guesser with N addresses gets N × the per-pair allowance at one account, and the right password from a fresh address signs in after at most maxDelay', async () => {
    const addresses = ['198.51.100.11', '198.51.100.12', '198.51.100.13'];
    const guessers = await Promise.all(addresses.map((address) => guess(t, address, 'heidi', PER_PAIR + 1)));
    for (const { answers } of guessers)
      expect(answers.map((answer) => answer.status)).toEqual([...Array(PER_PAIR - 1).fill(401), 429, 429]);
    // Exactly N × maxFailuresPerAccountAndAddress passwords were checked, none more.
    const reasons = (await auditOf('sign_in.failed', 'heidi')).map((event) => event.reason);
    expect(reasons.filter((reason) => reason === 'invalid_credentials')).toHaveLength(
      addresses.length * PER_PAIR,
    );

    const fresh = '198.51.100.14';
    const signedIn = await (await formFrom(t, fresh))('heidi', PASSWORD);
    expect(signedIn.status).toBe(303);
    // Slowed down by the account's failures — by maxDelay exactly, not by the uncapped 2^n delay.
    expect(signedIn.ms).toBeGreaterThanOrEqual(MAX_DELAY_MS - 5);
    const id = await userId('heidi');
    const delayed = t.logs.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'login.delayed' && line.userId === id && line.address === fresh);
    expect(delayed).toEqual([expect.objectContaining({ ms: MAX_DELAY_MS, by: 'account' })]);
  });

  it('F12: wrong passwords at many accounts from one address slow that address down, then lock it out of every account; another address is neither', async () => {
    const S = '198.51.100.21';
    const attempt = await formFrom(t, S);
    const answers: Answer[] = [];
    for (let i = 0; i < PER_ADDRESS; i++)
      answers.push(await attempt(`spray-${i}@example.com`, 'Summer2024!'));
    expect(answers.map((answer) => answer.status)).toEqual([...Array(PER_ADDRESS - 1).fill(401), 429]);
    expectLocked(answers.at(-1)!, LOCK_SECONDS);
    // The address's own slow-down after delayAfterPerAddress failures (no account had more than one).
    expect(answers[ADDRESS_FREE]!.ms).toBeGreaterThanOrEqual(DELAY_MS - 5);
    expect(answers[ADDRESS_FREE + 1]!.ms).toBeGreaterThanOrEqual(2 * DELAY_MS - 5);
    // Locked out of every account, the right password of one it never tried included; not elsewhere.
    expectLocked(await attempt('ivan', PASSWORD), LOCK_SECONDS);
    expect((await (await formFrom(t, '198.51.100.22'))('ivan', PASSWORD)).status).toBe(303);
    const admin = await adminToken(t);
    const locks = await api(t, admin, 'GET', '/audit-events?type=sign_in.locked&pageSize=100');
    expect(
      locks.body.items.filter(
        (event: { reason: string; details: { address: string } }) =>
          event.reason === 'address' && event.details.address === S,
      ),
    ).toHaveLength(1);
  });

  describe('with a lock of a few seconds', () => {
    let short: TestIssuer;
    beforeAll(async () => {
      short = await startIssuer(driver, {
        proxy: { hops: 1 },
        signIn: {
          maxFailuresPerAccountAndAddress: PER_PAIR,
          lockDuration: SHORT_LOCK_SECONDS,
          delay: 1,
          maxDelay: 10,
        },
      });
      await loadWorld(short);
      await short.issuer.seed({ users: [{ username: 'dan', email: 'dan@example.com', password: PASSWORD }] });
    });
    afterAll(() => short?.close());

    it('B54: the right password is refused from the locked address while the lock lasts and accepted once it ends', async () => {
      const { attempt } = await guess(short, '203.0.113.3', 'dan', PER_PAIR);
      const refused = await attempt('dan', PASSWORD);
      expectLocked(refused, SHORT_LOCK_SECONDS);
      expect(refused.location).toBeUndefined();
      // Another form from the same address (a new interaction, the email instead of the username) is locked as well.
      expectLocked(
        await (await formFrom(short, '203.0.113.3'))('DAN@example.com', PASSWORD),
        SHORT_LOCK_SECONDS,
      );

      await new Promise((resolve) => setTimeout(resolve, (Number(refused.retryAfter) + 1) * 1000));
      const accepted = await attempt('dan', PASSWORD);
      expect(accepted.status).toBe(303);
      expect(accepted.location).toContain('/oidc/auth/');
      // A success clears the pair's count: three more mistakes are answered at full strength again.
      const after = await guess(short, '203.0.113.3', 'dan', 3);
      expect(after.answers.map((a) => a.status)).toEqual([401, 401, 401]);
    }, 60_000);
  });
});
