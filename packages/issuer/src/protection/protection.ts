/**
 * The issuer's protections against abuse, built once per issuer: the client address of a request
 * (the one function every per-address limit keys on), sign-in throttling and lockout, the Management
 * API rate limit and the token-endpoint rate limits. Every counter is shared by all instances on one
 * PostgreSQL database: sign-in failures are counted in the store as they happen; rate limits are
 * decided in memory and flushed to the store every `rateLimits.syncInterval` ms (see rate-limiter.ts).
 * With no trusted proxy, the first request carrying `X-Forwarded-For` is logged as a warning: behind an
 * unconfigured proxy every client would share the proxy's address, and its sign-in locks.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@gatehouse/core';
import type Provider from 'oidc-provider';
import type { Logger } from 'pino';
import { DEFAULTS } from '../config/defaults.js';
import { RateLimitedError } from '../errors.js';
import type { AuditTrail } from '../internal/audit.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { Store } from '../storage/store.js';
import { clientAddress } from './client-address.js';
import { createRateLimiter } from './rate-limiter.js';
import { createSignInGuard, type SignInGuard } from './sign-in-guard.js';
import { installTokenEndpointProtection } from './token-endpoint.js';

/**
 * The protections of one issuer.
 *
 * @example
 * ```ts
 * const protection = createProtection({ config, store, audit, log, now: epoch });
 * protection.install(provider);
 * ```
 */
export interface Protection {
  /** The client address of `req` under `config.proxy`. */
  readonly address: (req: IncomingMessage) => string;
  /** Sign-in throttling and lockout. */
  readonly signIn: SignInGuard;
  /** Count a Management API request of the authenticated client; throws a `RateLimitedError` over the limit. */
  readonly limitManagement: (auth: AuthInfo) => Promise<void>;
  /** Install the address and the token-endpoint limits on a (re)built provider. */
  readonly install: (provider: Provider) => void;
  /** Stop the password-hashing threads; flush the rate-limit counts and stop their timer. */
  readonly close: () => Promise<void>;
}

/**
 * What {@link createProtection} needs.
 *
 * @example
 * ```ts
 * const deps: ProtectionDeps = { config, store, audit, log, now: epoch };
 * ```
 */
export interface ProtectionDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly audit: AuditTrail;
  readonly log: Logger;
  /** Epoch seconds. */
  readonly now: () => number;
}

/**
 * Build the protections.
 *
 * @example
 * ```ts
 * const protection = createProtection({ config, store, audit, log, now: epoch });
 * const outcome = await protection.signIn.authenticate({ identifier, password, address: protection.address(req) });
 * ```
 */
export function createProtection(deps: ProtectionDeps): Protection {
  const { config, store, now } = deps;
  const limits = config.rateLimits;
  const limiter = createRateLimiter({
    ...limits,
    ...DEFAULTS.rateLimitTracking,
    counters: store.failures,
    log: deps.log,
    now,
  });
  const untrusted = config.proxy.hops === 0 && config.proxy.addresses.length === 0;
  let warned = false;
  const address = (req: IncomingMessage): string => {
    if (untrusted && !warned && req.headers['x-forwarded-for'] !== undefined) {
      // Once per process: behind an unconfigured proxy every client has the proxy's address, so the
      // sign-in locks of one would fall on all (catalogue F12). A client may have written the header.
      warned = true;
      deps.log.warn(
        { event: 'proxy.untrusted_forwarded_for' },
        'a request carries X-Forwarded-For but no proxy is trusted, so the header is ignored: behind a proxy every client has its address and shares its sign-in locks; set proxy.hops or proxy.addresses',
      );
    }
    return clientAddress(req, config.proxy);
  };
  const token = {
    address,
    limiter,
    perClient: limits.tokenPerClient,
    perAddress: limits.tokenPerAddress,
    now,
  };
  const signIn = createSignInGuard(deps);
  return {
    address: token.address,
    signIn,
    async close() {
      await Promise.all([signIn.close(), limiter.close()]);
    },
    async limitManagement(auth) {
      const key = `management\n${auth.clientId ?? auth.subject}`;
      const [wait] = limiter.hit([{ key, max: limits.managementPerClient }], now());
      if (wait! > 0) throw new RateLimitedError(wait!);
    },
    install: (provider) => installTokenEndpointProtection(provider, token),
  };
}
