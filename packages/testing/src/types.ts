/**
 * The public types of a test issuer: {@link TestIssuer} and what its members take and return.
 *
 * @module
 */
import type { HttpHandler } from 'msw';
import type { TestAlgorithm } from './defaults.js';
import type { OutageOptions, TimeoutOutageOptions } from './handlers.js';
import type { OutageKind } from './internal/routes.js';
import type { RotateOptions, TestJwks } from './keys.js';
import type { SignOptions } from './options.js';
import type { IssuerServer, ListenOptions } from './server.js';

/**
 * Claims to put in (or, with `undefined` values, take out of) a token.
 *
 * @example
 * ```ts
 * const claims: Claims = { scope: 'read:orders', tenant: 'acme', client_id: undefined };
 * ```
 */
export type Claims = Record<string, unknown>;

/**
 * The `act` claim of an impersonation token (RFC 8693 §4.1): the actor's `sub`, maybe nested `act`.
 *
 * @example
 * ```ts
 * const actor: ActorClaim = { sub: 'support-agent-7', client_id: 'support-console', act: { sub: 'ops-bot' } };
 * ```
 */
export interface ActorClaim {
  sub: string;
  [claim: string]: unknown;
}

/**
 * A factory of one kind of bad token. Claims and options apply as in `sign()`.
 *
 * @example
 * ```ts
 * const make: BadTokenFactory = issuer.tokens.expired;
 * const token = await make({ scope: 'read:orders' });
 * ```
 */
export type BadTokenFactory = (claims?: Claims, options?: SignOptions) => Promise<string>;

/**
 * Ready-made bad tokens for negative tests. Each fails verification with core for exactly one reason (its
 * `AuthError.reason` is given per token); everything else about it is valid.
 *
 * @example
 * ```ts
 * await expect(verifier.verify(await issuer.tokens.expired())).rejects.toMatchObject({ reason: 'expired' });
 * ```
 */
export interface BadTokens {
  /** Expired 10 minutes ago (more than any allowed clock tolerance). Reason `expired`. */
  readonly expired: BadTokenFactory;
  /** `nbf` 10 minutes in the future. Reason `not_yet_valid`. */
  readonly notYetValid: BadTokenFactory;
  /** `aud` is another API (`DEFAULTS.wrongAudience`). Reason `audience`. */
  readonly wrongAudience: BadTokenFactory;
  /** `iss` is another issuer (`DEFAULTS.wrongIssuer`), signed with this issuer's key. Reason `issuer`. */
  readonly wrongIssuer: BadTokenFactory;
  /**
   * Signed by a key that is not in the JWKS, under a `kid` that is not either. Reason `key_not_found`.
   * Pass `{ kid: issuer.kid }` in the options to forge the active `kid` instead: reason `signature`.
   */
  readonly unknownKey: BadTokenFactory;
  /** A valid token with one bit of its signature flipped. Reason `signature`. */
  readonly tamperedSignature: BadTokenFactory;
  /** Unsigned: header `alg: "none"` and an empty signature. Reason `algorithm` (`none` is never accepted). */
  readonly algNone: BadTokenFactory;
  /** Header `typ: "dpop+jwt"`: another kind of JWT than an access token. Reason `typ`. */
  readonly wrongType: BadTokenFactory;
  /** No `exp` claim (RFC 9068 §2.2 requires it). Reason `claim` (claim `exp`). */
  readonly noExpiry: BadTokenFactory;
}

/**
 * Outage simulation for the JWKS endpoint, to test that an API answers 503 (not 401) when it cannot get
 * signing keys.
 *
 * @example
 * ```ts
 * server.use(issuer.outage.serverError());        // msw: prepend a failing JWKS handler
 * issuer.outage.simulate('timeout');                // any mode: issuer.handlers, issuer.fetch and listen()
 * issuer.outage.clear();
 * ```
 */
export interface Outage {
  /** msw handler: the JWKS answers HTTP 500 (with no body). */
  serverError(options?: OutageOptions): HttpHandler;
  /** msw handler: the JWKS never answers (or only after `options.delay` ms), so the verifier's timeout fires. */
  timeout(options?: TimeoutOutageOptions): HttpHandler;
  /** msw handler: the JWKS answers 200 with truncated JSON. */
  malformed(options?: OutageOptions): HttpHandler;
  /** Make the JWKS fail this way in every mode (msw `handlers`, `fetch`, `listen()`) until {@link Outage.clear}. */
  simulate(kind: OutageKind): void;
  /** End a simulated outage. */
  clear(): void;
  /** The outage being simulated, or `undefined`. */
  readonly current: OutageKind | undefined;
}

/**
 * What to spread into `createVerifier()` of `@gatehouse/core` (or an adapter's options).
 *
 * @example
 * ```ts
 * const { issuer: iss, audience, jwksUri }: VerifierConnection = issuer.verifierOptions();
 * ```
 */
export interface VerifierConnection {
  issuer: string;
  audience: string | string[];
  jwksUri: string;
}

/**
 * A fake issuer for tests, from {@link createTestIssuer}.
 *
 * @example
 * ```ts
 * const issuer = await createTestIssuer();
 * const server = setupServer(...issuer.handlers);
 * const token = await issuer.sign({ scope: 'read:orders' });
 * ```
 */
export interface TestIssuer {
  /** Issuer identifier: `iss` of new tokens. Changes while `listen()` runs when you did not choose one. */
  readonly issuer: string;
  /** Default `aud` of tokens: the API under test. */
  readonly audience: string | string[];
  /** Where the JWKS is served (`{issuer}/jwks`, or the loopback server's while it runs). */
  readonly jwksUri: string;
  /** `kid` of the active signing key. Changes with `rotateKeys()`. */
  readonly kid: string;
  /** Algorithm of the active signing key. */
  readonly alg: TestAlgorithm;
  /**
   * msw handlers serving discovery (`/.well-known/openid-configuration` and the RFC 8414
   * `/.well-known/oauth-authorization-server` form) and the JWKS. They always serve the current keys.
   * Throws when msw is not installed.
   *
   * @example
   * ```ts
   * const server = setupServer(...issuer.handlers);
   * ```
   */
  readonly handlers: HttpHandler[];
  /**
   * Mint an RFC 9068 access token (`typ: at+jwt`) signed by the active key. Defaults: `iss`, `sub`, `aud`,
   * `client_id`, `scope` (when the issuer has one), `iat` = now, `exp` = `iat + expiresIn`, and a random `jti`.
   * `claims` override them; a claim set to `undefined` is left out.
   *
   * @example
   * ```ts
   * await issuer.sign({ scope: 'read:orders', tenant: 'acme' }, { expiresIn: 60 });
   * await issuer.sign({ sub: undefined }); // no sub: fails core's strict mode
   * ```
   */
  sign(claims?: Claims, options?: SignOptions): Promise<string>;
  /** Ready-made bad tokens: see {@link BadTokens}. */
  readonly tokens: BadTokens;
  /**
   * An impersonation (delegation) token: `sub` is the user, `act` names who acts for them (RFC 8693 §4.1).
   * Core exposes it as `AuthInfo.actor` with `AuthInfo.delegated === true`.
   *
   * @example
   * ```ts
   * await issuer.impersonation('support-agent-7', { sub: 'customer-42', scope: 'read:orders' });
   * await issuer.impersonation({ sub: 'support-agent-7', act: { sub: 'admin-1' } }); // a chain
   * ```
   */
  impersonation(actor: string | ActorClaim, claims?: Claims, options?: SignOptions): Promise<string>;
  /**
   * Rotate the signing key: a new key (new `kid`) signs from now on. The previous key stays published, like
   * during a real issuer's grace period, until the next rotation or with `{ dropPrevious: true }`.
   *
   * @example
   * ```ts
   * await issuer.rotateKeys();
   * await issuer.rotateKeys({ dropPrevious: true }); // emergency rotation: old tokens stop verifying
   * ```
   */
  rotateKeys(options?: RotateOptions): Promise<void>;
  /**
   * The public JWKS (a fresh copy): the active key first, then the previous one after a rotation.
   *
   * @example
   * ```ts
   * const verifier = createLocalVerifier(issuer.jwks());
   * ```
   */
  jwks(): TestJwks;
  /** JWKS outage simulation: see {@link Outage}. */
  readonly outage: Outage;
  /**
   * An in-memory `fetch` serving this issuer's discovery and JWKS: no msw, no network. Requests to any
   * other URL reject with a `TypeError`, like a network failure.
   *
   * @example
   * ```ts
   * const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
   * ```
   */
  readonly fetch: typeof fetch;
  /**
   * `{ issuer, audience, jwksUri }` to spread into `createVerifier()` (read them after `listen()` if you use it).
   *
   * @example
   * ```ts
   * const verifier = createVerifier({ ...issuer.verifierOptions(), strict: true });
   * ```
   */
  verifierOptions(): VerifierConnection;
  /**
   * Serve discovery and the JWKS on a real loopback HTTP server.
   *
   * A loopback server cannot serve the default `https://issuer.gatehouse.test/oidc`, so when you did not pass
   * an `issuer` option, the issuer moves onto the server while it runs: `issuer.issuer` becomes
   * `http://127.0.0.1:PORT/oidc` and `issuer.jwksUri` `http://127.0.0.1:PORT/oidc/jwks`, for tokens signed
   * after `listen()` resolves. `close()` moves it back. Core accepts `http:` for loopback hosts.
   *
   * With an explicit `http://127.0.0.1:PORT/...` issuer, the server binds that port and nothing changes.
   * With any other explicit issuer, `iss` stays as chosen and only `jwksUri` moves to the server (give the
   * verifier that `jwksUri`; discovery cannot work for an issuer the server is not).
   *
   * @example
   * ```ts
   * const issuer = await createTestIssuer();
   * const server = await issuer.listen();
   * const verifier = createVerifier(issuer.verifierOptions()); // http://127.0.0.1:PORT/oidc
   * const token = await issuer.sign();
   * await server.close();
   * ```
   */
  listen(options?: ListenOptions): Promise<IssuerServer>;
}
