/**
 * Protections installed on each oidc-provider instance: its `ctx.ip` is the issuer's
 * {@link clientAddress} (so the token-exchange failure limiter keys on the same address as
 * everything else), and client authentication at the token endpoint is rate limited per client id
 * and per client address.
 *
 * The limit is checked where oidc-provider looks the client up (`Client.find`), after it has read the
 * client id (from Basic, `client_id` or an assertion) and before it checks any secret: a flood of
 * wrong secrets is refused without comparing them, and the answer is oidc-provider's own JSON error
 * (`429 {"error":"too_many_requests",…}` with `Retry-After`).
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { TokenRateLimitedError } from '../errors.js';
import type { RateLimit } from './rate-limiter.js';

/**
 * What {@link installTokenEndpointProtection} needs.
 *
 * @example
 * ```ts
 * installTokenEndpointProtection(provider, { address, perClient, perAddress, now: epoch });
 * ```
 */
export interface TokenEndpointProtection {
  /** The client address of a request. */
  readonly address: (req: IncomingMessage) => string;
  /** Token requests per client id. */
  readonly perClient: RateLimit;
  /** Token requests per client address. */
  readonly perAddress: RateLimit;
  /** Epoch seconds. */
  readonly now: () => number;
}

/**
 * Install the address and the token-endpoint rate limits on `provider`.
 *
 * @example
 * ```ts
 * const provider = createProvider(deps);
 * installTokenEndpointProtection(provider, protection);
 * ```
 */
export function installTokenEndpointProtection(provider: Provider, deps: TokenEndpointProtection): void {
  provider.use(async (ctx, next) => {
    ctx.request.ip = deps.address(ctx.req);
    await next();
  });
  const counted = new WeakSet<object>();
  const find = provider.Client.find.bind(provider.Client);
  provider.Client.find = async (id: string) => {
    const ctx = Provider.ctx as KoaContextWithOIDC | undefined;
    if (ctx?.oidc?.route === 'token' && !counted.has(ctx)) {
      counted.add(ctx);
      const now = deps.now();
      for (const [scope, limit, key] of [
        ['address', deps.perAddress, `token-address\n${ctx.ip}`],
        ['client', deps.perClient, `token-client\n${id}`],
      ] as const) {
        const wait = await limit.hit(key, now);
        if (wait > 0) {
          ctx.set('retry-after', String(wait));
          throw new TokenRateLimitedError(scope, wait);
        }
      }
    }
    return find(id);
  };
}
