/**
 * IP addresses and host names as the webhook rules compare them: `ipaddr.js`, loaded for both builds,
 * and a URL's host in the form the rules match. Shared by the `webhooks` setting (config/webhooks.ts
 * parses `allowedPrivateTargets`) and the target rules (webhooks/targets.ts, webhooks/egress.ts).
 *
 * @module
 */
import { createRequire } from 'node:module';
import type * as IpAddr from 'ipaddr.js';

/**
 * The `ipaddr.js` module. It is CommonJS typed with an ambient `export =`, which this package's settings
 * (no esModuleInterop) do not let TypeScript default-import; `require` loads it in both builds.
 *
 * @example
 * ```ts
 * ipaddr.parse('::ffff:127.0.0.1').range(); // 'ipv4Mapped'
 * ```
 */
export const ipaddr: typeof IpAddr = createRequire(import.meta.url)('ipaddr.js');

/**
 * An address parsed by `ipaddr.js`.
 *
 * @example
 * ```ts
 * const address: IpAddress = ipaddr.parse('10.0.0.1');
 * ```
 */
export type IpAddress = IpAddr.IPv4 | IpAddr.IPv6;

/**
 * A URL's host as the rules compare it: `[::1]` → `::1`; a name lower-cased without its trailing dot.
 *
 * @example
 * ```ts
 * bareHost('[::1]'); // '::1'
 * bareHost('Hooks.Example.com.'); // 'hooks.example.com'
 * ```
 */
export const bareHost = (hostname: string): string =>
  hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.toLowerCase().replace(/\.$/, '');
