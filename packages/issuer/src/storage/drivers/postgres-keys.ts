/**
 * Key changes on PostgreSQL, shared by every process on the database: a change takes a
 * transaction-scoped advisory lock first (so changes are serialized) and sends `NOTIFY` (delivered on
 * commit); a store that `watch`es keys holds one extra connection that `LISTEN`s, reconnecting with
 * backoff when it is lost and telling its listeners to re-read whenever it is (again) live.
 *
 * @module
 */
import pg from 'pg';
import { DEFAULTS } from '../../config/defaults.js';
import type { Executor } from '../executor.js';
import type { KeyChanges } from '../sql/signing-keys.js';
import { LOCK_KEY } from './postgres-executor.js';

/** Channel of key-change notifications; the payload is the schema whose keys changed. */
const KEYS_CHANNEL = 'gatehouse_signing_keys';
/** Longest wait before the notification connection is tried again, in milliseconds. */
const MAX_RECONNECT_DELAY_MS = DEFAULTS.postgresDriver.maxReconnectDelay;

/**
 * Key-change announcements of one store.
 *
 * @example
 * ```ts
 * const notifications = new KeyNotifications(url, (err) => log.warn(err.message));
 * const unwatch = notifications.watch(() => reloadKeys());
 * await notifications.close();
 * ```
 */
export class KeyNotifications implements KeyChanges {
  readonly #url: string;
  readonly #onError: (err: Error) => void;
  readonly #listeners = new Set<() => void>();
  #client: pg.Client | undefined;
  #schema: string | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelay = 250;
  #closed = false;

  constructor(url: string, onError: (err: Error) => void) {
    this.#url = url;
    this.#onError = onError;
  }

  async lock(tx: Executor): Promise<void> {
    await tx.one(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, ['keys']);
  }

  async announce(tx: Executor): Promise<void> {
    await tx.one(`SELECT pg_notify('${KEYS_CHANNEL}', coalesce(current_schema(), ''))`);
  }

  watch(listener: () => void): () => void {
    const once = () => listener();
    this.#listeners.add(once);
    if (this.#client !== undefined && this.#reconnectTimer === undefined) queueMicrotask(once);
    this.#listen();
    return () => {
      this.#listeners.delete(once);
      if (this.#listeners.size === 0) void this.#stop();
    };
  }

  /** Stop listening for good. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #changed(): void {
    for (const listener of this.#listeners) queueMicrotask(listener);
  }

  /** Open the LISTEN connection (once); on loss, reconnect with backoff and tell every listener. */
  #listen(): void {
    if (this.#client !== undefined || this.#closed || this.#reconnectTimer !== undefined) return;
    const client = new pg.Client({ connectionString: this.#url, application_name: 'gatehouse-issuer-keys' });
    this.#client = client;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (err !== undefined) this.#onError(err);
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      if (this.#closed || this.#listeners.size === 0) return;
      this.#reconnectTimer = setTimeout(() => {
        this.#reconnectTimer = undefined;
        this.#listen();
      }, this.#reconnectDelay);
      this.#reconnectTimer.unref();
      this.#reconnectDelay = Math.min(this.#reconnectDelay * 2, MAX_RECONNECT_DELAY_MS);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === KEYS_CHANNEL && message.payload === this.#schema) this.#changed();
    });
    client
      .connect()
      .then(async () => {
        const schema = await client.query('SELECT current_schema() AS schema');
        this.#schema = String(schema.rows[0]?.schema ?? '');
        await client.query(`LISTEN ${KEYS_CHANNEL}`);
        this.#reconnectDelay = 250;
        // Changes made before LISTEN took effect (or while the connection was down) were not
        // announced to us: let every listener re-read once now.
        this.#changed();
      })
      .catch((err: Error) => onLost(err));
  }
}
