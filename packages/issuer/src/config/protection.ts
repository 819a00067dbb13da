/**
 * The issuer's protections against abuse, as settings: `proxy` (which `X-Forwarded-For` entries are
 * trusted when the issuer keys on a client address), `signIn` (throttling and lockout of the sign-in
 * page, bounded password hashing) and `rateLimits` (Management API and token endpoint). Values are
 * validated with zod strict objects: a bad value or an unknown member throws a `ConfigError` naming it.
 *
 * `trustProxy: true` is refused: it trusted the left-most `X-Forwarded-For` entry, which the client
 * writes; `proxy.hops` (or `proxy.addresses`) replaces it. `signIn.maxFailures` is refused too: it
 * locked an account for everyone; `signIn.maxFailuresPerAccountAndAddress` locks one address out of
 * one account instead (catalogue F12).
 *
 * @module
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { DEFAULTS } from './defaults.js';
import { integer, parseSettings, withDefaults } from './parse.js';

/**
 * Which proxies in front of the issuer are trusted to append the client's address to
 * `X-Forwarded-For`. The client address is the entry just left of the trusted ones (read from the
 * right end); with neither setting, it is the TCP peer and the header is ignored.
 *
 * @example
 * ```ts
 * // One load balancer in front of the issuer:
 * const proxy: ProxyConfig = { hops: 1 };
 * // Or: every proxy in these networks is trusted, however many there are.
 * const byAddress: ProxyConfig = { addresses: ['10.0.0.0/8', '192.168.1.7'] };
 * ```
 */
export interface ProxyConfig {
  /** Number of trusted proxies in front of the issuer (0–10). Default 0. Environment: `GATEHOUSE_PROXY_HOPS`. */
  hops?: number;
  /**
   * Addresses or CIDR ranges of trusted proxies (IPv4 or IPv6). Default none. Environment:
   * `GATEHOUSE_PROXY_ADDRESSES` (comma-separated).
   */
  addresses?: readonly string[];
}

/**
 * Sign-in throttling and lockout, and the bound on password hashing. Locks are only ever placed on a
 * client address (for one account, or for all of them): an account is slowed down, never locked, so
 * wrong passwords from one address cannot keep its owner out.
 *
 * @example
 * ```ts
 * const signIn: SignInConfig = { maxFailuresPerAccountAndAddress: 5, lockDuration: 1_800 };
 * ```
 */
export interface SignInConfig {
  /**
   * Failed sign-ins of one account from one client address before that address is locked out of that
   * account. Default 10. Replaces `maxFailures`, which locked the account for everyone.
   */
  maxFailuresPerAccountAndAddress?: number;
  /** Failed sign-ins from one client address (to any account) before it is locked. Default 100. */
  maxFailuresPerAddress?: number;
  /** Seconds over which failures are counted. Default 900. */
  failureWindow?: number;
  /** Seconds a lock lasts. Default 900. */
  lockDuration?: number;
  /**
   * Failures of an account (from any address) answered at full speed; later attempts wait `delay`,
   * doubling up to `maxDelay` (a slow-down, never a refusal). Default 3.
   */
  delayAfter?: number;
  /** The same for a client address. Default 30. */
  delayAfterPerAddress?: number;
  /** First delay in milliseconds (doubles with each further failure). Default 250. */
  delay?: number;
  /** Longest delay in milliseconds. Default 4000. */
  maxDelay?: number;
  /** Sign-in password hashes computed at once (each on a low-priority worker thread). Default: half the CPUs, at least 1. */
  concurrentHashes?: number;
  /** Sign-ins waiting for a hash slot; more are refused at once (503). Default 64. */
  queuedHashes?: number;
}

/**
 * Request rate limits, each counted in fixed windows of `window` seconds; over the limit a request gets
 * `429` with `Retry-After`.
 *
 * @example
 * ```ts
 * const rateLimits: RateLimitConfig = { managementPerClient: 300, window: 60 };
 * ```
 */
export interface RateLimitConfig {
  /** Window length in seconds. Default 60. */
  window?: number;
  /** Management API requests per client per window. Default 1200. */
  managementPerClient?: number;
  /** Token endpoint requests (client authentications) per client id per window. Default 600. */
  tokenPerClient?: number;
  /** Token endpoint requests per client address per window. Default 1200. */
  tokenPerAddress?: number;
  /**
   * Milliseconds between an instance's flushes of its counts to the shared store (10–3600000). Default
   * 1000. Across instances a limit can be exceeded by at most what the other instances counted in one
   * interval.
   */
  syncInterval?: number;
}

/**
 * {@link ProxyConfig} after validation: `trusted` matches the trusted addresses.
 *
 * @example
 * ```ts
 * issuer.config.proxy.hops; // 1
 * ```
 */
export interface ResolvedProxyConfig {
  readonly hops: number;
  readonly addresses: readonly string[];
  /** Whether an address is one of `addresses`. */
  readonly trusted: (address: string) => boolean;
}

/** The three protection settings after defaults and validation. */
export interface ResolvedProtectionConfig {
  readonly proxy: ResolvedProxyConfig;
  readonly signIn: Readonly<Required<SignInConfig>>;
  readonly rateLimits: Readonly<Required<RateLimitConfig>>;
}

const PROXY = z.strictObject({
  hops: integer(0, 10).optional(),
  addresses: z.array(z.string()).max(1_000).optional(),
});

const SIGN_IN = z.strictObject({
  maxFailuresPerAccountAndAddress: integer(1, 10_000).optional(),
  maxFailuresPerAddress: integer(1, 1_000_000).optional(),
  failureWindow: integer(1, 86_400).optional(),
  lockDuration: integer(1, 86_400).optional(),
  delayAfter: integer(0, 10_000).optional(),
  delayAfterPerAddress: integer(0, 1_000_000).optional(),
  delay: integer(0, 60_000).optional(),
  maxDelay: integer(0, 60_000).optional(),
  concurrentHashes: integer(1, 64).optional(),
  queuedHashes: integer(0, 10_000).optional(),
});

const RATE_LIMITS = z.strictObject({
  window: integer(1, 3_600).optional(),
  managementPerClient: integer(1, 10_000_000).optional(),
  tokenPerClient: integer(1, 10_000_000).optional(),
  tokenPerAddress: integer(1, 10_000_000).optional(),
  syncInterval: integer(10, 3_600_000).optional(),
});

function trustedAddresses(addresses: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const [index, entry] of addresses.entries()) {
    const [address, prefix, extra] = entry.trim().split('/');
    const family = isIP(address ?? '');
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = family === 6 ? 128 : 32;
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && (!/^\d{1,3}$/.test(prefix!) || bits > max))
    ) {
      throw new ConfigError(
        `proxy.addresses.${index}`,
        'must be an IPv4 or IPv6 address or CIDR range, e.g. 10.0.0.0/8',
      );
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address!, type);
    else list.addSubnet(address!, bits, type);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * `signIn` without `maxFailures` when that is `undefined` (absent, as any member given so); given a
 * value, it is refused with a message naming its successor: its meaning changed (an account lock
 * became an address lock), so it is not carried over silently.
 */
function withoutReplaced(signIn: unknown): unknown {
  if (signIn === null || typeof signIn !== 'object' || !Object.hasOwn(signIn, 'maxFailures')) return signIn;
  const { maxFailures, ...rest } = signIn as Record<string, unknown>;
  if (maxFailures === undefined) return rest;
  throw new ConfigError(
    'signIn.maxFailures',
    'is replaced by "signIn.maxFailuresPerAccountAndAddress" (flag --sign-in-max-failures-per-account-and-address, env GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS): wrong passwords now lock the client address out of the account, never the account itself, which is only slowed down (signIn.delayAfter)',
  );
}

/**
 * Validate `trustProxy`, `proxy`, `signIn` and `rateLimits` and apply {@link DEFAULTS}.
 *
 * @example
 * ```ts
 * const { proxy } = resolveProtection({ proxy: { hops: 1 } });
 * resolveProtection({ trustProxy: true }); // ConfigError: "trustProxy" is replaced by "proxy.hops" …
 * resolveProtection({ signIn: { maxFailures: 5 } }); // ConfigError: "signIn.maxFailures" is replaced by …
 * ```
 */
export function resolveProtection(config: {
  readonly trustProxy?: unknown;
  readonly proxy?: unknown;
  readonly signIn?: unknown;
  readonly rateLimits?: unknown;
}): ResolvedProtectionConfig {
  if (config.trustProxy !== undefined && config.trustProxy !== false) {
    throw new ConfigError(
      'trustProxy',
      'is replaced by "proxy.hops" (the number of proxies in front of the issuer, e.g. proxy.hops: 1; env GATEHOUSE_PROXY_HOPS) or "proxy.addresses" (their addresses or CIDR ranges): trustProxy: true trusted the left-most X-Forwarded-For entry, which any client can write',
    );
  }
  const proxy = parseSettings(PROXY, config.proxy, 'proxy');
  const addresses = Object.freeze([...(proxy.addresses ?? DEFAULTS.proxy.addresses)]);
  const signIn = withDefaults(
    DEFAULTS.signIn,
    parseSettings(SIGN_IN, withoutReplaced(config.signIn), 'signIn'),
  );
  if (signIn.maxDelay < signIn.delay)
    throw new ConfigError('signIn.maxDelay', 'must be at least signIn.delay');
  return Object.freeze({
    proxy: Object.freeze({
      hops: proxy.hops ?? DEFAULTS.proxy.hops,
      addresses,
      trusted: trustedAddresses(addresses),
    }),
    signIn,
    rateLimits: withDefaults(
      DEFAULTS.rateLimits,
      parseSettings(RATE_LIMITS, config.rateLimits, 'rateLimits'),
    ),
  });
}
