/**
 * The `shutdown` settings of the issuer: how a graceful stop (`issuer.shutdown()`, which the CLI runs
 * on SIGTERM and SIGINT) drains. `drainDelay` is how long the instance keeps serving after it started
 * answering `503` at `/health/ready`, so load balancers take it out of rotation before it stops
 * accepting connections; `drainTimeout` bounds the whole stop, after which what remains is closed.
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import { integer, parseSettings, withDefaults } from './parse.js';

/**
 * Graceful-shutdown settings.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * // Behind a balancer that checks /health/ready every 2 s and needs 2 failures to take an instance out.
 * const issuer = await createIssuer({
 *   baseUrl: 'https://id.example.com',
 *   shutdown: { drainDelay: 5, drainTimeout: 25 },
 * });
 * ```
 */
export interface ShutdownConfig {
  /**
   * Seconds between the start of a shutdown (`/health/ready` answers `503` from then on) and the moment
   * the instance stops accepting connections: set it longer than your balancer takes to notice (check
   * interval × failures before it takes an instance out). Default 0 (no balancer: stop at once).
   * Environment: `GATEHOUSE_SHUTDOWN_DRAIN_DELAY`; flag: `--shutdown-drain-delay`.
   */
  drainDelay?: number;
  /**
   * Seconds the whole shutdown may take, `drainDelay` included; past it, requests still in flight are
   * cut, webhook deliveries under way are handed back to the queue, and the process exits with 1.
   * Must be more than `drainDelay`. Default 25 (below Kubernetes' default 30 s grace period). Environment:
   * `GATEHOUSE_SHUTDOWN_DRAIN_TIMEOUT`; flag: `--shutdown-drain-timeout`.
   */
  drainTimeout?: number;
}

/**
 * {@link ShutdownConfig} after defaults and validation (`issuer.config.shutdown`).
 *
 * @example
 * ```ts
 * const { drainDelay, drainTimeout }: ResolvedShutdownConfig = issuer.config.shutdown;
 * ```
 */
export type ResolvedShutdownConfig = Readonly<Required<ShutdownConfig>>;

const SHUTDOWN = z.strictObject({
  drainDelay: integer(0, 3_600).optional(),
  drainTimeout: integer(1, 3_600).optional(),
});

/**
 * Validate the `shutdown` setting and apply {@link DEFAULTS}`.shutdown`. Throws a `ConfigError` naming a
 * bad or unknown member, or `shutdown.drainDelay` when it is not less than `drainTimeout`.
 *
 * @example
 * ```ts
 * resolveShutdownConfig({ drainDelay: 5 }); // { drainDelay: 5, drainTimeout: 25 }
 * resolveShutdownConfig({ drainDelay: 30 }); // ConfigError: "shutdown.drainDelay" must be less than shutdown.drainTimeout (25)
 * ```
 */
export function resolveShutdownConfig(value: ShutdownConfig | undefined): ResolvedShutdownConfig {
  const given = parseSettings(SHUTDOWN, value, 'shutdown');
  const { drainDelay, drainTimeout } = DEFAULTS.shutdown;
  const resolved = withDefaults({ drainDelay, drainTimeout }, given);
  if (resolved.drainDelay >= resolved.drainTimeout)
    throw new ConfigError(
      'shutdown.drainDelay',
      `must be less than shutdown.drainTimeout (${resolved.drainTimeout})`,
    );
  return resolved;
}
