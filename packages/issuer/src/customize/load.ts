/**
 * Loading `customJwtClaims` at start: the worker pool is started and must load the module (else a
 * `ConfigError` naming `customJwtClaims.module`), then the claims policy is built on it.
 *
 * @module
 */
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Store } from '../storage/store.js';
import { type CustomClaims, createCustomClaims } from './claims.js';
import { type ClaimsRunner, createClaimsRunner } from './runner.js';

/**
 * A loaded custom-claims function: the policy and the worker pool to close on shutdown.
 *
 * @example
 * ```ts
 * const loaded: LoadedCustomClaims | undefined = await loadCustomClaims(config, store, log);
 * await loaded?.runner.close();
 * ```
 */
export interface LoadedCustomClaims {
  readonly runner: ClaimsRunner;
  readonly customClaims: CustomClaims;
}

/**
 * Start the workers when `customJwtClaims` is configured; `undefined` when it is not.
 *
 * @example
 * ```ts
 * const loaded = await loadCustomClaims(config, store, log);
 * const provider = createProvider({ ...deps, customClaims: loaded?.customClaims });
 * ```
 */
export async function loadCustomClaims(
  config: ResolvedConfig,
  store: Store,
  log: Logger,
): Promise<LoadedCustomClaims | undefined> {
  const settings = config.customJwtClaims;
  if (settings === undefined) return undefined;
  const runner = createClaimsRunner(settings);
  if (!(await runner.ready())) {
    await runner.close();
    throw new ConfigError(
      'customJwtClaims.module',
      `must be an ES module exporting a function getCustomJwtClaims (${settings.module} could not be loaded)`,
    );
  }
  const customClaims = createCustomClaims({ runner, store, onError: settings.onError, log });
  log.info(
    { event: 'custom_claims.loaded', timeout: settings.timeout, workers: settings.workers },
    'custom JWT claims function loaded',
  );
  return { runner, customClaims };
}
