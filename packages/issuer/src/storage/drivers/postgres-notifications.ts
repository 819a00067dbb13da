/**
 * The one LISTEN connection of a PostgreSQL store, shared by what it hears: signing-key changes
 * (`postgres-keys.ts`) and configuration changes (the token-request cache; migration 0009's triggers
 * send them). Opened when first watched; when lost, reopened with backoff, and every watcher is told
 * once it is live again (changes made meanwhile were not heard). Notifications of other schemas on the
 * same database are ignored.
 *
 * @module
 */
import pg from 'pg';
import { DEFAULTS } from '../../config/defaults.js';

/** The channels, each notified with the schema whose rows changed as payload. */
export const CHANNELS = Object.freeze({
  keys: 'gatehouse_signing_keys',
  config: 'gatehouse_config',
} as const);
type Channel = (typeof CHANNELS)[keyof typeof CHANNELS];

/** Longest wait before the notification connection is tried again, in milliseconds. */
const MAX_RECONNECT_DELAY_MS = DEFAULTS.postgresDriver.maxReconnectDelay;

/**
 * The notification connection of one store.
 *
 * @example
 * ```ts
 * const notifications = new PgNotifications(url, (err) => log.warn(err.message));
 * const unwatch = notifications.watch(CHANNELS.keys, () => reloadKeys());
 * notifications.live; // true once LISTEN is in effect
 * await notifications.close();
 * ```
 */
export class PgNotifications {
  readonly #url: string;
  readonly #onError: (err: Error) => void;
  readonly #listeners = new Map<Channel, Set<() => void>>();
  #client: pg.Client | undefined;
  #schema: string | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelay = 250;
  #closed = false;
  #live = false;

  constructor(url: string, onError: (err: Error) => void) {
    this.#url = url;
    this.#onError = onError;
  }

  /** Whether LISTEN is in effect now: every change committed from here on will be heard. */
  get live(): boolean {
    return this.#live;
  }

  /**
   * Call `listener` on each change announced on `channel`, and whenever the connection is live
   * (again). Resolves nothing; returns how to stop.
   */
  watch(channel: Channel, listener: () => void): () => void {
    const once = () => listener();
    let set = this.#listeners.get(channel);
    if (set === undefined) this.#listeners.set(channel, (set = new Set()));
    set.add(once);
    if (this.#client !== undefined && this.#reconnectTimer === undefined) queueMicrotask(once);
    this.#listen();
    return () => {
      set.delete(once);
      if (this.#watchers() === 0) void this.#stop();
    };
  }

  /** Stop listening for good. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stop();
  }

  #watchers(): number {
    let count = 0;
    for (const set of this.#listeners.values()) count += set.size;
    return count;
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#live = false;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #changed(channel?: Channel): void {
    for (const [name, set] of this.#listeners)
      if (channel === undefined || name === channel) for (const listener of set) queueMicrotask(listener);
  }

  /** Open the LISTEN connection (once); on loss, reconnect with backoff and tell every watcher. */
  #listen(): void {
    if (this.#client !== undefined || this.#closed || this.#reconnectTimer !== undefined) return;
    const client = new pg.Client({
      connectionString: this.#url,
      application_name: 'gatehouse-issuer-notify',
    });
    this.#client = client;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      if (this.#client === client) {
        this.#client = undefined;
        this.#live = false;
      }
      if (err !== undefined) this.#onError(err);
      client.end().catch(() => undefined);
      if (this.#closed || this.#watchers() === 0) return;
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
      if (message.payload === this.#schema) this.#changed(message.channel as Channel);
    });
    client
      .connect()
      .then(async () => {
        const schema = await client.query('SELECT current_schema() AS schema');
        this.#schema = String(schema.rows[0]?.schema ?? '');
        await client.query(
          Object.values(CHANNELS)
            .map((channel) => `LISTEN ${channel};`)
            .join(' '),
        );
        if (lost || this.#client !== client) return;
        this.#reconnectDelay = 250;
        this.#live = true;
        // Changes made before LISTEN took effect (or while the connection was down) were not
        // announced to us: let every watcher re-read once now.
        this.#changed();
      })
      .catch((err: Error) => onLost(err));
  }
}

/**
 * Configuration changes as a PostgreSQL store sees them: a count of the notifications heard, valid
 * only while the connection is live. Starts listening when first asked.
 *
 * @example
 * ```ts
 * const external = configNotifications(notifications);
 * external.stamp(); // undefined until LISTEN is in effect, then a count that grows with each change
 * ```
 */
export function configNotifications(notifications: PgNotifications): { stamp(): number | undefined } {
  let heard = 0;
  let watching = false;
  return {
    stamp: () => {
      if (!watching) {
        watching = true;
        notifications.watch(CHANNELS.config, () => {
          heard++;
        });
      }
      return notifications.live ? heard : undefined;
    },
  };
}
