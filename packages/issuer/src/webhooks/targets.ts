/**
 * Which hosts webhooks may be sent to (catalogue F13). A webhook URL is a request the issuer makes on
 * behalf of whoever holds `webhooks:write`, from inside the issuer's network: without a check it reaches
 * the cloud metadata service, the database, an admin port on loopback. So every address a delivery
 * would connect to is classified:
 *
 * - **forbidden**, always: cloud metadata addresses (`169.254.169.254`, `fd00:ec2::254` …), the
 *   unspecified address (`0.0.0.0/8`, `::`, which reach the local host), multicast and broadcast;
 * - **loopback** (`127.0.0.0/8`, `::1`): allowed only while the issuer's own base URL is on loopback
 *   (development), or when listed in `webhooks.allowedPrivateTargets`;
 * - **internal**: private (`10/8`, `172.16/12`, `192.168/16`, `fc00::/7`), link-local (`169.254/16`,
 *   `fe80::/10`), carrier-grade NAT, reserved and documentation ranges: allowed only when listed;
 * - **public**: everything else.
 *
 * An IPv6 address that carries an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
 * `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is classified as the IPv4 address it carries.
 * A URL whose host is an address literal is checked at registration; a name is checked at each delivery,
 * on every address it resolves to (`egress.ts`), and refused at registration only when it is plainly
 * internal (`localhost`, a single label, `.local`, `.internal` …).
 *
 * Classification uses `ipaddr.js` (its IANA special-purpose ranges, kept up to date by its
 * maintainers) rather than a hand-kept table; the embedded-IPv4 forms and the metadata addresses are
 * added here.
 *
 * @module
 */
import { isIP } from 'node:net';
import type * as IpAddr from 'ipaddr.js';
import { parseAllowedTarget } from '../config/webhooks.js';
import { bareHost, type IpAddress, ipaddr } from '../internal/ip.js';

/**
 * The class of an address: see the module description.
 *
 * @example
 * ```ts
 * const kind: AddressClass = classifyAddress('10.0.0.1'); // 'internal'
 * ```
 */
export type AddressClass = 'public' | 'loopback' | 'internal' | 'forbidden';

/** Cloud metadata and host-agent addresses: refused even when an allow-list entry covers them. */
const METADATA = Object.freeze([
  '169.254.169.254', // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle …
  '169.254.170.2', // AWS ECS task metadata
  '169.254.170.23', // AWS EKS pod identity
  '100.100.100.200', // Alibaba Cloud
  '168.63.129.16', // Azure host agent (WireServer)
  'fd00:ec2::254', // AWS IMDS over IPv6
  'fd00:ec2::23', // AWS EKS pod identity over IPv6
]).map((text) => ipaddr.parse(text).toNormalizedString());

/** Names that only ever mean something inside a network (RFC 6761, RFC 6762, RFC 8375, common use). */
const INTERNAL_SUFFIXES = Object.freeze(['.local', '.internal', '.home.arpa', '.lan', '.intranet', '.corp']);

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/** The IPv4 address an IPv6 address carries in its last 32 bits, or in bits 16–48 for 6to4. */
function embeddedIPv4(address: IpAddr.IPv6): IpAddr.IPv4 | undefined {
  const parts = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const range = address.range();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  if (range === 'rfc6145') return v4(parts[6]!, parts[7]!);
  if (range === '6to4') return v4(parts[1]!, parts[2]!);
  // NAT64 well-known prefix (64:ff9b::/96) and the deprecated IPv4-compatible form (::/96).
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part: number) => part === 0);
  if (parts[0] === 0x64 && parts[1] === 0xff9b && zeros(2, 6)) return v4(parts[6]!, parts[7]!);
  if (zeros(0, 6) && range !== 'loopback' && range !== 'unspecified') return v4(parts[6]!, parts[7]!);
  return undefined;
}

const V4_CLASS: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  loopback: 'loopback',
  unspecified: 'forbidden',
  broadcast: 'forbidden',
  multicast: 'forbidden',
};
const V6_CLASS: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  loopback: 'loopback',
  unspecified: 'forbidden',
  multicast: 'forbidden',
};

/** The address a delivery would really reach: an IPv6 form of an IPv4 address is that IPv4 address. */
function effective(text: string): IpAddress | undefined {
  // node's parser is strict (dotted quads, no `0x7f.1` or `2130706433` forms); ipaddr.js then classifies.
  if (isIP(text) === 0) return undefined;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv6' ? (embeddedIPv4(address as IpAddr.IPv6) ?? address) : address;
}

/**
 * The class of an IP address (IPv4 or IPv6 text); anything that is not an address is `forbidden`.
 *
 * @example
 * ```ts
 * classifyAddress('93.184.215.14'); // 'public'
 * classifyAddress('::ffff:127.0.0.1'); // 'loopback'
 * classifyAddress('10.0.0.1'); // 'internal'
 * classifyAddress('169.254.169.254'); // 'forbidden'
 * ```
 */
export function classifyAddress(text: string): AddressClass {
  const address = effective(text);
  if (address === undefined) return 'forbidden';
  if (METADATA.includes(address.toNormalizedString())) return 'forbidden';
  const table = address.kind() === 'ipv4' ? V4_CLASS : V6_CLASS;
  return table[address.range()] ?? 'internal';
}

/**
 * Why a target was refused (stable; the Management API words each one).
 *
 * @example
 * ```ts
 * const refusal: TargetRefusal | undefined = policy.checkHost('169.254.169.254'); // 'forbidden_address'
 * ```
 */
export type TargetRefusal = 'forbidden_address' | 'private_address' | 'loopback_address' | 'internal_name';

/**
 * The target rules of one issuer.
 *
 * @example
 * ```ts
 * const policy = createTargetPolicy({ baseUrl: 'https://id.example.com', allowedPrivateTargets: ['10.1.0.0/16'] });
 * policy.checkAddress('hooks.example.com', '10.1.2.3'); // undefined: allowed
 * policy.checkAddress('hooks.example.com', '10.2.0.1'); // 'private_address'
 * ```
 */
export interface TargetPolicy {
  /** Whether loopback targets are allowed because the issuer's base URL is on loopback. */
  readonly loopbackAllowed: boolean;
  /** Why `address` (one `host` resolved to, or the literal host itself) may not be reached, if it may not. */
  checkAddress(host: string, address: string): TargetRefusal | undefined;
  /** Why the host of a URL may not be registered (literals and plainly internal names), if it may not. */
  checkHost(hostname: string): TargetRefusal | undefined;
}

/**
 * Whether `hostname` (a URL's, brackets removed or not) is on loopback: an address or a `localhost` name.
 *
 * @example
 * ```ts
 * isLoopbackHost('[::1]'); // true
 * isLoopbackHost('hooks.example.com'); // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = bareHost(hostname);
  return isIP(host) !== 0 ? classifyAddress(host) === 'loopback' : isLocalhostName(host);
}

/**
 * The rules for an issuer whose base URL is `baseUrl`, with the operator's `allowedPrivateTargets`
 * (validated by the config schema; an invalid entry throws here).
 *
 * @example
 * ```ts
 * const policy = createTargetPolicy({ baseUrl: 'http://127.0.0.1:3001', allowedPrivateTargets: [] });
 * policy.loopbackAllowed; // true
 * ```
 */
export function createTargetPolicy(options: {
  readonly baseUrl: string;
  readonly allowedPrivateTargets: readonly string[];
}): TargetPolicy {
  const entries = options.allowedPrivateTargets.map(parseAllowedTarget);
  const names = new Set(entries.flatMap((entry) => ('name' in entry ? [entry.name] : [])));
  const ranges = entries.flatMap((entry) => ('range' in entry ? [entry.range] : []));
  const listed = (text: string) => {
    const parsed = ipaddr.parse(text);
    const candidates = [parsed, effective(text)!];
    return ranges.some(([network, bits]) =>
      candidates.some((address) => address.kind() === network.kind() && address.match(network, bits)),
    );
  };
  const loopbackAllowed = isLoopbackHost(new URL(options.baseUrl).hostname);
  const checkAddress = (hostname: string, address: string): TargetRefusal | undefined => {
    const kind = classifyAddress(address);
    if (kind === 'public') return undefined;
    if (kind === 'forbidden') return 'forbidden_address';
    if (names.has(bareHost(hostname)) || listed(address)) return undefined;
    if (kind === 'loopback') return loopbackAllowed ? undefined : 'loopback_address';
    return 'private_address';
  };
  return {
    loopbackAllowed,
    checkAddress,
    checkHost(hostname) {
      const host = bareHost(hostname);
      if (isIP(host) !== 0) return checkAddress(host, host);
      if (names.has(host)) return undefined;
      if (isLocalhostName(host)) return loopbackAllowed ? undefined : 'loopback_address';
      if (!host.includes('.') || INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix)))
        return 'internal_name';
      return undefined;
    },
  };
}
