/**
 * The `webhooks` setting of the issuer: which private targets webhooks may reach anyway, when a failing
 * endpoint is disabled, how long a rotated-out signing secret stays valid, and how many deliveries one
 * endpoint may have in flight. The delivery loop's other timings are fixed (`DEFAULTS.webhooks`). An
 * `allowedPrivateTargets` entry is parsed here ({@link parseAllowedTarget}); webhooks/targets.ts applies it.
 *
 * @module
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { bareHost, type IpAddress, ipaddr } from '../internal/ip.js';
import { DEFAULTS } from './defaults.js';
import { integer, parseSettings, withDefaults } from './parse.js';

/**
 * Webhook settings.
 *
 * @example
 * ```ts
 * import { createIssuer } from '@gatehouse/issuer';
 *
 * const issuer = await createIssuer({
 *   baseUrl: 'https://id.example.com',
 *   // A receiver inside the private network, reached on purpose.
 *   webhooks: { allowedPrivateTargets: ['10.20.0.0/16', 'siem.corp.example'], disableAfter: 86_400 },
 * });
 * ```
 */
export interface WebhookConfig {
  /**
   * Hosts (exact names), addresses or CIDR ranges that webhooks may target although they are loopback
   * or private (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`, link-local …); cloud metadata,
   * unspecified and multicast addresses are refused whatever this says. Loopback is also allowed while
   * `baseUrl` is on loopback (development). Default none. Environment:
   * `GATEHOUSE_WEBHOOK_ALLOWED_PRIVATE_TARGETS` (comma-separated).
   */
  allowedPrivateTargets?: readonly string[];
  /**
   * Seconds an endpoint may keep failing before it is disabled (audit event `webhook.disabled`). Default
   * 259200 (3 days). Environment: `GATEHOUSE_WEBHOOK_DISABLE_AFTER`.
   */
  disableAfter?: number;
  /**
   * Seconds the previous signing secret stays valid after `POST /api/webhooks/{id}/secret` (deliveries
   * carry a signature for each). Default 86400. Environment: `GATEHOUSE_WEBHOOK_SECRET_OVERLAP`.
   */
  secretOverlap?: number;
  /**
   * Deliveries to one endpoint in flight at once, across all instances. Default 4. Environment:
   * `GATEHOUSE_WEBHOOK_CONCURRENCY`.
   */
  concurrency?: number;
}

/**
 * {@link WebhookConfig} after defaults and validation (`issuer.config.webhooks`).
 *
 * @example
 * ```ts
 * const { allowedPrivateTargets, disableAfter }: ResolvedWebhookConfig = issuer.config.webhooks;
 * ```
 */
export type ResolvedWebhookConfig = Readonly<Required<WebhookConfig>>;

/**
 * An entry of `webhooks.allowedPrivateTargets` parsed: an address, a CIDR range or a host name.
 * Throws a `TypeError` for anything else.
 *
 * @example
 * ```ts
 * parseAllowedTarget('10.0.0.0/8'); // { range: [IPv4, 8] }
 * parseAllowedTarget('hooks.internal'); // { name: 'hooks.internal' }
 * ```
 */
export function parseAllowedTarget(
  entry: string,
): { readonly range: [IpAddress, number] } | { readonly name: string } {
  const [network = '', bits, ...rest] = entry.split('/');
  if (isIP(network) !== 0 && rest.length === 0 && bits !== undefined && ipaddr.isValidCIDR(entry))
    return { range: ipaddr.parseCIDR(entry) };
  if (isIP(entry) !== 0) {
    const address = ipaddr.parse(entry);
    return { range: [address, address.kind() === 'ipv4' ? 32 : 128] };
  }
  const name = bareHost(entry);
  if (
    /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/.test(
      name,
    )
  )
    return { name };
  throw new TypeError(`${JSON.stringify(entry.slice(0, 64))} is not an address, a CIDR range or a host name`);
}

const TARGET = z.string().superRefine((entry, context) => {
  try {
    parseAllowedTarget(entry);
  } catch {
    context.addIssue({
      code: 'custom',
      message: 'must be an IP address, a CIDR range (10.0.0.0/8) or a host name',
    });
  }
});

const WEBHOOKS = z.strictObject({
  allowedPrivateTargets: z.array(TARGET).max(1_000).optional(),
  disableAfter: integer(1, 31_536_000).optional(),
  secretOverlap: integer(0, DEFAULTS.webhooks.maxSecretOverlap).optional(),
  concurrency: integer(1, 64).optional(),
});

/**
 * Validate the `webhooks` setting and apply {@link DEFAULTS}`.webhooks`. Throws a `ConfigError` naming
 * a bad or unknown member (`webhooks.allowedPrivateTargets.1`).
 *
 * @example
 * ```ts
 * resolveWebhookConfig({ allowedPrivateTargets: ['10.0.0.0/8'] }).disableAfter; // 259200
 * resolveWebhookConfig({ allowedPrivateTargets: ['10.0.0.0/33'] }); // ConfigError
 * ```
 */
export function resolveWebhookConfig(value: WebhookConfig | undefined): ResolvedWebhookConfig {
  const given = parseSettings(WEBHOOKS, value, 'webhooks');
  const { allowedPrivateTargets, disableAfter, secretOverlap, concurrency } = DEFAULTS.webhooks;
  return withDefaults(
    { allowedPrivateTargets, disableAfter, secretOverlap, concurrency },
    {
      ...given,
      ...(given.allowedPrivateTargets === undefined
        ? {}
        : { allowedPrivateTargets: Object.freeze([...given.allowedPrivateTargets]) }),
    },
  );
}
