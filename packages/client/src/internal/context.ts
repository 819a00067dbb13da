/**
 * What every operation of one client shares: resolved options, its records in storage, the
 * oauth4webapi client and client authentication, and the issuer's metadata (discovered once; a failed
 * discovery is not cached, so the next call tries again).
 *
 * @module
 */
import * as oauth from 'oauth4webapi';
import { DpopKey } from '../dpop.js';
import { ServerResponseError } from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import { guard, type RequestOptions, requestOptions } from './http.js';
import { Records } from './records.js';
import { insecureAllowed, parseUrl } from './url.js';

/**
 * Shared state of one client.
 *
 * @example
 * ```ts
 * const ctx = new Context(resolveOptions(options));
 * const as = await ctx.metadata();
 * ```
 */
export class Context {
  readonly options: ResolvedOptions;
  readonly records: Records;
  /** oauth4webapi client metadata. */
  readonly client: oauth.Client;
  /** Client authentication: HTTP Basic with the secret, or none for a public client. */
  readonly auth: oauth.ClientAuth;
  /** The DPoP key, when DPoP is on. */
  readonly dpopKey: DpopKey | undefined;
  #metadata: Promise<oauth.AuthorizationServer> | undefined;

  constructor(options: ResolvedOptions) {
    this.options = options;
    this.dpopKey =
      options.dpop === undefined
        ? undefined
        : new DpopKey(options.dpop, options.keyPrefix, options.storageKind === 'sessionStorage');
    this.records = new Records(options.storage, options.keyPrefix);
    this.client = { client_id: options.clientId };
    this.auth =
      options.clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(options.clientSecret);
  }

  /** Request options for a request to `target`. */
  request(target: string | URL | undefined): RequestOptions {
    return requestOptions(this.options, target);
  }

  /** The DPoP handle for this client's requests (`undefined` when DPoP is off). */
  async dpop(): Promise<oauth.DPoPHandle | undefined> {
    return this.dpopKey?.handle(this.client);
  }

  /** The issuer's metadata (OpenID Connect Discovery), fetched on first use. */
  metadata(): Promise<oauth.AuthorizationServer> {
    if (this.#metadata === undefined) {
      const issuer = this.options.issuer;
      const pending = guard('discovery', async () => {
        const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...this.request(issuer) });
        return oauth.processDiscoveryResponse(issuer, response);
      });
      this.#metadata = pending;
      pending.catch(() => {
        if (this.#metadata === pending) this.#metadata = undefined;
      });
    }
    return this.#metadata;
  }

  /**
   * An endpoint from the metadata that the browser is sent to (authorization, end session): a valid
   * URL using `https:`, or `http:` where `allowInsecureRequests` lets it through.
   */
  browserEndpoint(value: unknown, name: string): URL {
    const url = typeof value === 'string' ? parseUrl(value) : null;
    if (url === null) throw new ServerResponseError(`The issuer's metadata has no valid ${name}`);
    if (url.protocol !== 'https:' && !insecureAllowed(url, this.options.insecure)) {
      throw new ServerResponseError(`The issuer's ${name} does not use https:`);
    }
    return url;
  }

  /** The current time in milliseconds. */
  now(): number {
    return Date.now();
  }
}
