/**
 * Sign-in throttling and lockout that cannot be turned against others (catalogue F12). Every attempt
 * is counted three ways in the store's shared counters (so every instance on one PostgreSQL database
 * sees the same counts) *before* its password is checked: per account and client address (the
 * pair), per client address, and per account. Parallel guesses are all counted, and once a pair or an
 * address reaches its threshold no further guess from it is even hashed.
 *
 * Locks are only ever placed on a client address: at `maxFailuresPerAccountAndAddress` failures the
 * address is locked out of that one account, at `maxFailuresPerAddress` out of every account, each
 * for `lockDuration`; every attempt it makes there, the right password included, is refused with
 * `Retry-After`. An account is never locked: past `delayAfter` failures (from any address) every
 * attempt at it waits a doubling delay, at most `maxDelay`, before its password is checked. So the
 * right password from another address still signs in, at worst `maxDelay` later, while a guesser
 * with N addresses gets at most N × `maxFailuresPerAccountAndAddress` guesses at one account per
 * `lockDuration`, each one slowed down (docs/security.md works the numbers). An address's own delay
 * (past `delayAfterPerAddress`) applies too; refusals of a locked address wait `maxDelay`, so a script
 * hammering a lock is slowed down rather than answered at full speed.
 *
 * The answer never says whether an account exists: an unknown identifier is counted, delayed and
 * locked under that identifier exactly as an account is, with the same messages, statuses and work.
 * Password hashing runs in the bounded hash pool, on low-priority threads (`hash-workers.ts`); an
 * attempt that finds the pool and its queue full is refused at once.
 * Every refusal is an audit event (`sign_in.failed`, `sign_in.locked`) with the identifier (only when it
 * names an account: an unknown one may be a password typed into the wrong field) and the
 * client address, never the password.
 *
 * @module
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { counterKey } from '../grants/failure-limiter.js';
import type { AuditTrail } from '../internal/audit.js';
import { dummyPasswordCheck, verifyPassword } from '../internal/secrets.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Store, UserRecord } from '../storage/store.js';
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

/** What is counted: the account and address pair, the address, the account (never locked). */
type Scope = 'pair' | 'address' | 'account';
/** What can be locked: only ever a client address (out of one account, or out of every account). */
type LockScope = Exclude<Scope, 'account'>;

/** The audit reason (and log scope) of a lock: what was locked. */
const LOCK_REASONS: Record<LockScope, string> = { pair: 'account_and_address', address: 'address' };

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
  const max: Record<LockScope, number> = {
    pair: limits.maxFailuresPerAccountAndAddress,
    address: limits.maxFailuresPerAddress,
  };

  const attemptsKey = (subject: string) => counterKey(`sign-in\n${subject}`);
  const lockKey = (subject: string) => counterKey(`sign-in-lock\n${subject}`);

  /** Seconds until the later of the address's locks (out of this account, out of all) ends; 0: none. */
  async function lockedFor(subjects: Record<Scope, string>, now: number): Promise<number> {
    const windows = await Promise.all([
      counters.get(lockKey(subjects.pair), now),
      counters.get(lockKey(subjects.address), now),
    ]);
    return Math.max(0, ...windows.map((window) => (window === undefined ? 0 : window.endsAt - now)));
  }

  /** Exponential delay once `failures` (before this attempt) pass the free ones, at most `maxDelay`. */
  const delayFor = (failures: number, free: number): number =>
    failures < free ? 0 : Math.min(limits.maxDelay, limits.delay * 2 ** Math.min(failures - free, 30));

  /** Attempts whose identifier names an account (see `record`). */
  const known = new WeakSet<SignInAttempt>();

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
        // An identifier that names no account may be anything typed into the field — a password, say —
        // so only one that names an account is kept (catalogue F22).
        details: {
          identifier: known.has(attempt) ? attempt.identifier : null,
          address: attempt.address,
          ...details,
        },
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
    scope: LockScope,
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
        { event: 'login.locked', scope: LOCK_REASONS[scope], userId: user?.id ?? null, until: window.endsAt },
        'sign-in locked for a client address',
      );
      await record('sign_in.locked', attempt, user, LOCK_REASONS[scope], { until: window.endsAt });
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
      if (found !== undefined) known.add(attempt);
      const user = found?.passwordHash == null ? undefined : found;
      // An unknown identifier is counted under itself, exactly as an account is under its id.
      const account = user === undefined ? `login:${attempt.identifier.toLowerCase()}` : `user:${user.id}`;
      const address = `address:${attempt.address}`;
      // An address holds no line break (it is an IP address or empty), so the pair's subject is unambiguous.
      const subjects: Record<Scope, string> = { pair: `pair:${address}\n${account}`, address, account };
      // Every attempt is counted first, refused ones included, so parallel attempts are all counted
      // and an address that keeps trying while locked keeps being slowed down.
      const windows = await counters.incrementAll(
        (['pair', 'address', 'account'] as const).map((scope) => ({
          key: attemptsKey(subjects[scope]),
          window: limits.failureWindow,
        })),
        now,
      );
      const [pair, byAddress, byAccount] = windows.map((window) => window.count) as [number, number, number];
      const counted: Record<LockScope, number> = { pair, address: byAddress };
      // Read after counting: a lock placed by a parallel attempt is seen (it is written before the
      // attempts it ends are forgotten).
      const wait = await lockedFor(subjects, now);
      if (wait > 0) {
        // Only a client address is ever locked: its refusals wait the longest delay, so scripts
        // hammering a lock are slowed down without slowing anyone else.
        await sleep(limits.maxDelay);
        return refuse({ kind: 'locked', retryAfter: wait }, attempt, user);
      }
      const addressDelay = delayFor(byAddress - 1, limits.delayAfterPerAddress);
      for (const scope of ['pair', 'address'] as const) {
        if (counted[scope] > max[scope]) {
          await sleep(addressDelay);
          return refuse(await lock(scope, subjects, attempt, user, now), attempt, user);
        }
      }
      // The per-account slow-down: seen by every address, bounded by maxDelay, never a refusal.
      const accountDelay = delayFor(byAccount - 1, limits.delayAfter);
      const delay = Math.max(accountDelay, addressDelay);
      if (delay > 0) {
        log.debug(
          {
            event: 'login.delayed',
            ms: delay,
            by: accountDelay >= addressDelay ? 'account' : 'address',
            userId: user?.id ?? null,
            address: attempt.address,
          },
          'sign-in slowed down',
        );
        await sleep(delay);
      }
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
        // The address's count is kept: one right password must not wipe a spraying address's record.
        await Promise.all([
          counters.reset(attemptsKey(subjects.pair)),
          counters.reset(attemptsKey(subjects.account)),
        ]);
        if (user.suspended) return refuse({ kind: 'suspended' }, attempt, user);
        return { kind: 'success', user };
      }
      await refuse({ kind: 'invalid' }, attempt, user);
      for (const scope of ['pair', 'address'] as const) {
        if (counted[scope] >= max[scope]) return lock(scope, subjects, attempt, user, now);
      }
      return { kind: 'invalid' };
    },
  };
}
