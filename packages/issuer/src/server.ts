/**
 * `createIssuer()`: wiring. Opens and migrates the store, runs the bootstrap, loads the signing keys,
 * builds oidc-provider (mounted at `/oidc`), the sign-in interactions (`/interaction`), the Management
 * API (`/api`, guarded by `@gatehouse/core`), `/health` and the probes (`/health/live`, `/health/ready`),
 * and returns a Node request handler with `listen()`, `shutdown()` (graceful) and `close()`.
 *
 * @module
 */
import type { Logger } from 'pino';
import { markAdminSecretUsed } from './bootstrap.js';
import { DEFAULTS } from './config/defaults.js';
import { mountConsole } from './console/routes.js';
import { loadCustomClaims } from './customize/load.js';
import { createFrontHandler } from './front.js';
import { createFailureLimiter } from './grants/failure-limiter.js';
import { createHealth } from './health.js';
import { createInteractionRoutes } from './interactions/routes.js';
import { createAuditTrail } from './internal/audit.js';
import { epoch } from './internal/ids.js';
import type { Issuer } from './issuer.js';
import { type IssuerConfig, type ResolvedConfig, resolveConfig } from './issuer-config.js';
import { createKeyLifecycle } from './key-lifecycle.js';
import { createLogger } from './logger.js';
import { startMaintenance } from './maintenance.js';
import { createManagementApi } from './management/api.js';
import { buildOidc, type OidcInstance } from './oidc/generation.js';
import { createProtection } from './protection/protection.js';
import { seed } from './seed.js';
import { createServing } from './serving.js';
import { createShutdown } from './shutdown.js';
import { openConfiguredStore, prepare } from './startup.js';
import type { Store } from './storage/store.js';
import {
  countingAudit,
  countingLimit,
  watchProvider,
  watchStore,
  webhookCounter,
} from './telemetry/hooks.js';
import { type IssuerTelemetry, startTelemetry } from './telemetry/sdk.js';
import { startWebhookDispatcher } from './webhooks/dispatcher.js';
import { createSecretBox } from './webhooks/secret-box.js';
import { createTargetPolicy } from './webhooks/targets.js';

export type { Issuer } from './issuer.js';

/**
 * Create an issuer. Validates the configuration (a bad setting throws a `ConfigError` naming it),
 * opens and migrates the store, bootstraps, and loads or generates the signing keys.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * const issuer = await createIssuer({ baseUrl: 'http://localhost:3001' });
 * if (issuer.admin.adminClientSecret) console.log(issuer.admin.adminClientId, issuer.admin.adminClientSecret);
 * await issuer.listen();
 * // … later
 * await issuer.close();
 * ```
 */
export async function createIssuer(options: IssuerConfig): Promise<Issuer> {
  const config = resolveConfig(options);
  const log = createLogger(config);
  // Before the store: a taken Prometheus port is known before anything else is opened.
  const telemetry = await startTelemetry(config.telemetry, { log, basePath: config.basePath });
  const ownsStore = config.store === undefined;
  let store: Store | undefined;
  try {
    store = config.store ?? openConfiguredStore(config, log);
    return await assemble(config, log, store, ownsStore, telemetry);
  } catch (err) {
    if (ownsStore) await store?.close();
    await telemetry.close();
    throw err;
  }
}

async function assemble(
  config: ResolvedConfig,
  log: Logger,
  store: Store,
  ownsStore: boolean,
  telemetry: IssuerTelemetry,
): Promise<Issuer> {
  const { metrics } = telemetry;
  const unwatchStore = metrics === undefined ? undefined : watchStore(store, metrics);
  const { cookieKeys, admin, initialKeys, dpopNonceSecret, csrfKey } = await prepare(config, log, store);
  const trail = createAuditTrail(store, log, epoch);
  const audit = metrics === undefined ? trail : countingAudit(trail, metrics);
  const claims = await loadCustomClaims(config, store, log);
  const limiter = createFailureLimiter(
    { maxFailures: config.tokenExchange.maxFailures, window: config.tokenExchange.failureWindow },
    store.failures,
  );
  const onGrant = markAdminSecretUsed(store, admin, log);
  const protection = createProtection({ config, store, audit, log, now: epoch });
  const common = { config, store, log, cookieKeys, dpopNonceSecret, customClaims: claims?.customClaims };
  const build = (): OidcInstance =>
    buildOidc({
      ...common,
      keys: keys.current(),
      audit,
      limiter,
      onGrant,
      protect: (provider) => {
        protection.install(provider);
        if (metrics !== undefined) watchProvider(provider, metrics);
      },
      currentKeys: () => keys.current(),
      refreshKeys: () => keys.refresh(),
    });
  const keys = createKeyLifecycle({
    config,
    store,
    log,
    initial: initialKeys,
    onChange: () => {
      oidc = build();
    },
  });
  let oidc: OidcInstance;
  try {
    oidc = build();
  } catch (err) {
    keys.close(); // no timer or key watch outlives a failed start
    throw err;
  }

  const validateApplication = (app: Parameters<OidcInstance['validateApplication']>[0]) =>
    oidc.validateApplication(app);
  const management = createManagementApi({
    config,
    store,
    log,
    audit,
    validateApplication,
    verifier: () => oidc.verifier,
    limit:
      metrics === undefined ? protection.limitManagement : countingLimit(protection.limitManagement, metrics),
    rotateKeys: async (event) => {
      await keys.rotate(event);
      return (await store.keys.list()).find((key) => key.status === 'active')!;
    },
  });
  const interactions = mountConsole(
    { config, log },
    createInteractionRoutes({
      config,
      store,
      log,
      provider: () => oidc.provider,
      csrfKey,
      protection,
      cookieKeys,
    }),
  );
  const health = createHealth({ store, log, signingKeys: () => keys.current().signing.length });
  const handler = telemetry.serve(
    createFrontHandler({
      config,
      store,
      log,
      health,
      oidc: () => oidc.callback,
      refreshJwks: keys.refreshQuietly,
      interactions,
      management,
    }),
  );
  const stopMaintenance = startMaintenance(store, log);
  const webhooks = startWebhookDispatcher({
    store,
    log,
    box: createSecretBox(store),
    policy: createTargetPolicy({ baseUrl: config.baseUrl, ...config.webhooks }),
    timing: { ...DEFAULTS.webhooks, ...config.webhooks },
    onSettled: metrics === undefined ? undefined : webhookCounter(metrics),
  });

  const servers = createServing(handler, config, log);
  let closed = false;
  const closeAll = async () => {
    if (closed) return;
    closed = true;
    stopMaintenance();
    keys.close();
    await servers.close();
    await webhooks.close();
    await protection.close();
    await claims?.runner.close();
    await telemetry.close(); // its last export reads the webhook queue: before the store closes
    unwatchStore?.();
    if (ownsStore) await store.close();
  };
  const shutdown = createShutdown({
    settings: config.shutdown,
    log,
    health,
    servers,
    webhooks,
    close: closeAll,
  });

  return {
    config,
    issuer: config.issuer,
    store,
    log,
    admin,
    get provider() {
      return oidc.provider;
    },
    handler,
    metricsAddress: telemetry.metricsAddress,
    tracesEndpoint: telemetry.tracesEndpoint,
    jwks: () => keys.current().jwks as unknown as { keys: Record<string, unknown>[] },
    listen: servers.listen,
    serve: servers.serve,
    rotateKeys: keys.rotate,
    reloadKeys: keys.reload,
    seed: (document) => seed({ store, config, now: epoch(), validateApplication }, document),
    shutdown: (reason) => shutdown.run(reason),
    async close() {
      if (shutdown.started) {
        // Closing during a graceful shutdown cuts it short; it closes everything itself.
        shutdown.cut();
        await shutdown.run();
        return;
      }
      await closeAll();
    },
  };
}
