/**
 * Sign-in throttling and lockout. Every attempt is counted per account and per client address in the
 * store's shared counters (so every instance on one PostgreSQL database sees the same counts)
 * *before* its password is checked: parallel guesses are all counted, and once an account or an
 * address reaches its threshold no further guess is even hashed. Past `delayAfter` attempts each one
 * waits a doubling delay (up to `maxDelay`); at the threshold the account (or the address) is locked
 * for `lockDuration` and every attempt, the right password included, is refused with `Retry-After`.
 * Refusals are delayed too (by the address's delay, the longest one for a locked address), so a
 * script hammering a lock is slowed down rather than answered at full speed.
 *
 * The answer never says whether an account exists: an unknown identifier is counted and locked under
 * that identifier exactly as an account is, with the same messages, statuses and work. Password
 * hashing runs in the bounded hash pool, on low-priority threads (`hash-workers.ts`); an attempt that
 * finds the pool and its queue full is refused at once.
 * Every refusal is an audit event (`sign_in.failed`, `sign_in.locked`) with the identifier and the
 * client address, never the password.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/schema.js';
import { counterKey } from '../grants/failure-limiter.js';
import type { AuditTrail } from '../internal/audit.js';
import { dummyPasswordCheck, verifyPassword } from '../internal/secrets.js';
import type { FailureWindow, Store, UserRecord } from '../storage/store.js';
import { createHashPool, HashPoolBusyError } from './hash-pool.js';
import { createHashWorkers } from './hash-workers.js';

/**
 * One sign-in attempt.
 *
 * @example
 * ```ts
 * const attempt: SignInAttempt = { identifier: 'alice', password, address: '203.0.113.9', applicationId: 'web' };
 * ```
 */
export interface SignInAttempt {
  /** Username or email, as typed (trimmed). */
  readonly identifier: string;
  readonly password: string;
  /** The client address (`clientAddress()`). */
  readonly address: string;
  /** The application the user is signing in to, when known. */
  readonly applicationId?: string | undefined;
}

/**
 * What became of a sign-in attempt. `locked` and `busy` carry the seconds to wait (`Retry-After`).
 *
 * @example
 * ```ts
 * if (outcome.kind === 'locked') res.setHeader('retry-after', String(outcome.retryAfter));
 * ```
 */
export type SignInOutcome =
  | { readonly kind: 'success'; readonly user: UserRecord }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'suspended' }
  | { readonly kind: 'locked'; readonly retryAfter: number }
  | { readonly kind: 'busy'; readonly retryAfter: number };

type Refusal = Exclude<SignInOutcome, { kind: 'success' }>;

/**
 * Checks sign-ins under throttling and lockout.
 *
 * @example
 * ```ts
 * const outcome = await guard.authenticate({ identifier, password, address: clientAddress(req, config.proxy) });
 * ```
 */
export interface SignInGuard {
  authenticate(attempt: SignInAttempt): Promise<SignInOutcome>;
  /** Stop the hashing threads. */
  close(): Promise<void>;
}

/**
 * What the guard needs.
 *
 * @example
 * ```ts
 * const guard = createSignInGuard({ config, store, audit, log, now: epoch });
 * ```
 */
export interface SignInGuardDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly audit: AuditTrail;
  readonly log: Logger;
  /** Epoch seconds. */
  readonly now: () => number;
}

/** Seconds a client is asked to wait when every hash slot is taken. */
const BUSY_RETRY_AFTER = 1;

type Scope = 'account' | 'address';

/**
 * Build the guard.
 *
 * @example
 * ```ts
 * const guard = createSignInGuard({ config, store, audit, log, now: epoch });
 * const outcome = await guard.authenticate({ identifier: 'alice', password: 'wrong', address: '127.0.0.1' });
 * outcome.kind; // 'invalid'
 * ```
 */
export function createSignInGuard(deps: SignInGuardDeps): SignInGuard {
  const { config, store, audit, log } = deps;
  const limits = config.signIn;
  const counters = store.failures;
  const pool = createHashPool({ concurrent: limits.concurrentHashes, queued: limits.queuedHashes });
  const workers = createHashWorkers(limits.concurrentHashes);
  const max: Record<Scope, number> = { account: limits.maxFailures, address: limits.maxFailuresPerAddress };
  const freeFailures: Record<Scope, number> = {
    account: limits.delayAfter,
    address: limits.delayAfterPerAddress,
  };

  const attemptsKey = (subject: string) => counterKey(`sign-in\n${subject}`);
  const lockKey = (subject: string) => counterKey(`sign-in-lock\n${subject}`);

  /** Seconds until the later of the subjects' locks ends (0: neither is locked), and whether the address is. */
  async function lockedFor(
    subjects: Record<Scope, string>,
    now: number,
  ): Promise<{ wait: number; address: boolean }> {
    const [account, address] = await Promise.all([
      counters.get(lockKey(subjects.account), now),
      counters.get(lockKey(subjects.address), now),
    ]);
    const left = (window: FailureWindow | undefined) => (window === undefined ? 0 : window.endsAt - now);
    return { wait: Math.max(left(account), left(address)), address: address !== undefined };
  }

  /** Exponential delay once `failures` (before this attempt) pass the free ones. */
  const delayFor = (failures: number, free: number): number =>
    failures < free ? 0 : Math.min(limits.maxDelay, limits.delay * 2 ** Math.min(failures - free, 30));

  async function record(
    type: 'sign_in.failed' | 'sign_in.locked',
    attempt: SignInAttempt,
    user: UserRecord | undefined,
    reason: string,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    try {
      await audit.record({
        type,
        applicationId: attempt.applicationId ?? null,
        userId: user?.id ?? null,
        reason,
        details: { identifier: attempt.identifier, address: attempt.address, ...details },
      });
    } catch (err) {
      log.error(
        { event: 'audit.failed', err: { message: (err as Error).message } },
        `could not record ${type}`,
      );
    }
  }

  /** Lock `scope` for `lockDuration` (the first to lock records it), then forget its attempts. */
  async function lock(
    scope: Scope,
    subjects: Record<Scope, string>,
    attempt: SignInAttempt,
    user: UserRecord | undefined,
    now: number,
  ): Promise<Refusal> {
    const window = await counters.increment(lockKey(subjects[scope]), now, limits.lockDuration);
    // The lock is written before the attempts are forgotten: an attempt counted after the reset reads the lock.
    await counters.reset(attemptsKey(subjects[scope]));
    if (window.count === 1) {
      log.warn(
        { event: 'login.locked', scope, userId: user?.id ?? null, until: window.endsAt },
        'sign-in locked',
      );
      await record('sign_in.locked', attempt, user, scope, { until: window.endsAt });
    }
    return { kind: 'locked', retryAfter: Math.max(window.endsAt - now, 1) };
  }

  async function refuse(
    outcome: Refusal,
    attempt: SignInAttempt,
    user: UserRecord | undefined,
  ): Promise<SignInOutcome> {
    const reason = outcome.kind === 'invalid' ? 'invalid_credentials' : outcome.kind;
    log.info(
      { event: 'login.failed', reason, userId: user?.id ?? null, address: attempt.address },
      'sign-in refused',
    );
    await record('sign_in.failed', attempt, user, reason);
    return outcome;
  }

  return {
    close: () => workers.close(),
    async authenticate(attempt) {
      const now = deps.now();
      const found = await store.users.findByLogin(attempt.identifier);
      const user = found?.passwordHash == null ? undefined : found;
      const subjects: Record<Scope, string> = {
        // An unknown identifier is counted under itself, exactly as an account is under its id.
        account: user === undefined ? `login:${attempt.identifier.toLowerCase()}` : `user:${user.id}`,
        address: `address:${attempt.address}`,
      };
      // Every attempt is counted first, refused ones included, so parallel attempts are all counted
      // and an address that keeps trying while locked keeps being slowed down.
      const [account, address] = await counters.incrementAll(
        [
          { key: attemptsKey(subjects.account), window: limits.failureWindow },
          { key: attemptsKey(subjects.address), window: limits.failureWindow },
        ],
        now,
      );
      const counted: Record<Scope, FailureWindow> = { account: account!, address: address! };
      const addressDelay = delayFor(counted.address.count - 1, freeFailures.address);
      // Read after counting: a lock placed by a parallel attempt is seen (it is written before the
      // attempts it ends are forgotten).
      const locked = await lockedFor(subjects, now);
      if (locked.wait > 0) {
        // A locked address is answered after the longest delay: scripts hammering it are slowed down.
        await sleep(locked.address ? limits.maxDelay : addressDelay);
        return refuse({ kind: 'locked', retryAfter: locked.wait }, attempt, user);
      }
      for (const scope of ['account', 'address'] as const) {
        if (counted[scope].count > max[scope]) {
          await sleep(addressDelay);
          return refuse(await lock(scope, subjects, attempt, user, now), attempt, user);
        }
      }
      const delay = Math.max(delayFor(counted.account.count - 1, freeFailures.account), addressDelay);
      if (delay > 0) await sleep(delay);
      let matches: boolean;
      try {
        matches = await pool.run(() =>
          user === undefined
            ? dummyPasswordCheck(attempt.password, config.passwords.scryptCost, workers.derive)
            : verifyPassword(attempt.password, user.passwordHash!, workers.derive),
        );
      } catch (err) {
        if (!(err instanceof HashPoolBusyError)) throw err;
        return refuse({ kind: 'busy', retryAfter: BUSY_RETRY_AFTER }, attempt, user);
      }
      if (matches && user !== undefined) {
        await counters.reset(attemptsKey(subjects.account));
        if (user.suspended) return refuse({ kind: 'suspended' }, attempt, user);
        return { kind: 'success', user };
      }
      await refuse({ kind: 'invalid' }, attempt, user);
      for (const scope of ['account', 'address'] as const) {
        if (counted[scope].count >= max[scope]) return lock(scope, subjects, attempt, user, now);
      }
      return { kind: 'invalid' };
    },
  };
}
