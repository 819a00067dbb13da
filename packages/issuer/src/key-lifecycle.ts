/**
 * The signing keys in force over an issuer's life: re-read when another process rotated them (announced
 * by the store's `watch`, polled every `keys.reloadInterval`, or asked for on an unknown `kid`), when
 * a retired key leaves the grace period, and after a rotation through this process. Every change is
 * handed to `onChange` (the issuer rebuilds oidc-provider with the new set).
 *
 * @module
 */
import type { Logger } from 'pino';
import { epoch } from './internal/ids.js';
import type { ResolvedConfig } from './issuer-config.js';
import { describeKey, type KeySet, loadKeySet, rotateSigningKey, type SigningKeyInfo } from './keys.js';
import type { NewAuditEvent, SigningKeyRecord, Store } from './storage/store.js';

/** Longest delay `setTimeout` accepts (2^31 − 1 ms); a later expiry is re-armed when it fires. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * What {@link createKeyLifecycle} needs.
 *
 * @example
 * ```ts
 * const deps: KeyLifecycleDeps = { config, store, log, initial: await loadKeySet(store, config, epoch()), onChange: rebuild };
 * ```
 */
export interface KeyLifecycleDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly log: Logger;
  /** The keys loaded at start. */
  readonly initial: KeySet;
  /** Called with the new set each time it changes. */
  readonly onChange: (keys: KeySet) => void;
}

/**
 * The keys in force and the ways to change them.
 *
 * @example
 * ```ts
 * const keys: KeyLifecycle = createKeyLifecycle(deps);
 * keys.current().jwks; // the public JWKS now in force
 * ```
 */
export interface KeyLifecycle {
  /** The keys in force now. */
  current(): KeySet;
  /** Re-read the keys (queued behind a read in flight, like {@link refresh}); `true` when they changed. */
  reload(): Promise<boolean>;
  /**
   * Re-read the keys, sharing one read among concurrent callers; each caller's read starts after it
   * called, so a JWKS served after another instance's rotation committed includes the new key.
   */
  refresh(): Promise<boolean>;
  /** {@link refresh} that logs a failure instead of rejecting. */
  refreshQuietly(): Promise<void>;
  /**
   * Rotate the signing key and switch to the new set; `event` makes the audit event recorded with the
   * rotation (a Management API change).
   */
  rotate(event?: (key: SigningKeyRecord) => NewAuditEvent): Promise<SigningKeyInfo>;
  /** Stop the timers and the store watch. */
  close(): void;
}

/**
 * Start following the keys: arms the expiry timer, watches the store for rotations by other
 * processes and polls every `keys.reloadInterval` seconds (0: no polling).
 *
 * @example
 * ```ts
 * const keys = createKeyLifecycle({ config, store, log, initial, onChange: (set) => rebuild(set) });
 * await keys.rotate();
 * keys.close();
 * ```
 */
export function createKeyLifecycle(deps: KeyLifecycleDeps): KeyLifecycle {
  const { config, store, log, onChange } = deps;
  let keys = deps.initial;

  let expiryTimer: NodeJS.Timeout | undefined;
  const scheduleExpiry = () => {
    clearTimeout(expiryTimer);
    if (keys.nextExpiry === undefined) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(1_000, (keys.nextExpiry - epoch() + 1) * 1000));
    expiryTimer = setTimeout(
      () =>
        void refresh().catch((err) =>
          log.error({ event: 'keys.reload_failed', err: { message: (err as Error).message } }),
        ),
      delay,
    );
    expiryTimer.unref();
  };
  scheduleExpiry();

  // Reads run one at a time (refresh() queues them): two reads in flight could finish out of order,
  // and a read begun before a rotation committed would then put the old set back over the new one.
  async function load(): Promise<boolean> {
    const next = await loadKeySet(store, config, epoch());
    if (next.fingerprint === keys.fingerprint) return false;
    keys = next;
    onChange(keys);
    scheduleExpiry();
    log.info({ event: 'keys.reloaded', kids: keys.signing.map((key) => key.kid) }, 'signing keys reloaded');
    return true;
  }

  let reloading: Promise<boolean> | undefined;
  let queued: Promise<boolean> | undefined;
  function refresh(): Promise<boolean> {
    if (reloading === undefined) {
      reloading = load().finally(() => {
        reloading = undefined;
      });
      return reloading;
    }
    queued ??= reloading
      .catch(() => false)
      .then(() => {
        queued = undefined;
        return refresh();
      });
    return queued;
  }
  const failed = (err: unknown) =>
    log.warn({ event: 'keys.reload_failed', err: { message: (err as Error).message } });
  const refreshQuietly = () => refresh().then(() => undefined, failed);

  // Rotations through other instances: announced at once (PostgreSQL NOTIFY), polled as a fallback.
  const unwatch = store.keys.watch(() => void refreshQuietly());
  let pollTimer: NodeJS.Timeout | undefined;
  if (config.keys.reloadInterval > 0) {
    pollTimer = setInterval(() => void refreshQuietly(), config.keys.reloadInterval * 1000);
    pollTimer.unref();
  }

  return {
    current: () => keys,
    reload: refresh,
    refresh,
    refreshQuietly,
    async rotate(event) {
      const key = await rotateSigningKey(store, config, epoch(), event);
      // A read that starts now, after the rotation committed, and after any read already in flight.
      await refresh();
      log.info({ event: 'keys.rotated', kid: key.kid }, 'signing key rotated');
      return describeKey(key);
    },
    close() {
      clearInterval(pollTimer);
      clearTimeout(expiryTimer);
      unwatch();
    },
  };
}
