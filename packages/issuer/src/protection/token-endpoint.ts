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
import type { RateLimiter } from './rate-limiter.js';

/**
 * What {@link installTokenEndpointProtection} needs.
 *
 * @example
 * ```ts
 * installTokenEndpointProtection(provider, { address, limiter, perClient: 600, perAddress: 1_200, now: epoch });
 * ```
 */
export interface TokenEndpointProtection {
  /** The client address of a request. */
  readonly address: (req: IncomingMessage) => string;
  /** The request counters (decided in memory, shared through the store). */
  readonly limiter: RateLimiter;
  /** Token requests per client id per window. */
  readonly perClient: number;
  /** Token requests per client address per window. */
  readonly perAddress: number;
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
      const [byAddress, byClient] = deps.limiter.hit(
        [
          { key: `token-address\n${ctx.ip}`, max: deps.perAddress },
          { key: `token-client\n${id}`, max: deps.perClient },
        ],
        deps.now(),
      );
      const wait = Math.max(byAddress!, byClient!);
      if (wait > 0) {
        ctx.set('retry-after', String(wait));
        throw new TokenRateLimitedError(byAddress! > 0 ? 'address' : 'client', wait);
      }
    }
    return find(id);
  };
}
