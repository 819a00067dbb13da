/**
 * `ResolvedConfig` → oidc-provider `Configuration`, and the construction of the `Provider`. This is
 * the only file that uses oidc-provider's configuration keys and client metadata names.
 *
 * Security defaults set here: PKCE (S256) required for every client; only `code` responses;
 * `client_secret_basic`, `client_secret_post` and `none` client authentication, with client secrets
 * stored as SHA-256 digests and compared by digest in constant time; HMAC algorithms disabled (they
 * would need the plain secret); refresh tokens rotated on every use; a replayed code or refresh token
 * revokes its grant; development interactions off. Clients enabled for token exchange get the RFC 8693
 * grant type. Just before a JWT access token is signed, `act` is set from the verified actor of a token
 * exchange (and from nothing else), `acr` and `auth_time` from the sign-in behind an authorization
 * code or refresh token (and from nothing else), then `getCustomJwtClaims` adds its claims when
 * configured (never a reserved one), then the `roles` claim is written. The `claims` parameter is
 * honoured for `acr` and `auth_time` only.
 *
 * @module
 */
import Provider, {
  type Account,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Logger } from 'pino';
import type { CustomClaims } from '../customize/claims.js';
import { installDpop } from '../dpop.js';
import { CustomClaimsError } from '../errors.js';
import { getExchangeState } from '../grants/exchange-state.js';
import { installImpersonationIntrospection, mayIntrospect } from '../grants/impersonation-introspection.js';
import { defaultResource, resourceServerInfo } from '../grants/resources.js';
import { applyRolesClaim } from '../grants/roles-claim.js';
import { GRANT_NOT_ALLOWED, TOKEN_EXCHANGE_GRANT_TYPE } from '../grants/token-exchange.js';
import { findApplication, reuseTokenClients } from '../grants/token-request.js';
import { PAGE_HEADERS } from '../interactions/views/layout.js';
import { renderError, renderLoggedOut, renderLogout } from '../interactions/views/message.js';
import { epoch } from '../internal/ids.js';
import { verifySecret } from '../internal/secrets.js';
import type { KeySet } from '../keys.js';
import { createAdapter } from '../storage/adapter.js';
import type { ApplicationRecord, Store } from '../storage/store.js';
import { claimsParameterAssertion } from './claims-parameter.js';
import { DEFAULTS, OIDC_SCOPES } from './defaults.js';
import { boundDescription, boundErrorBody } from './error-echo.js';
import { pinPublicOrigin } from './public-origin.js';
import type { ResolvedConfig } from './schema.js';
import { authenticationClaims, SUPPORTED_ACR_VALUES, stepUpPolicy } from './step-up.js';

/** Claims released per OpenID scope. */
const CLAIMS = {
  openid: ['sub'],
  profile: ['preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
};

/** Grant types per application type. */
const GRANT_TYPES: Readonly<Record<ApplicationRecord['type'], string[]>> = {
  SPA: ['authorization_code', 'refresh_token'],
  Native: ['authorization_code', 'refresh_token'],
  Traditional: ['authorization_code', 'refresh_token'],
  MachineToMachine: ['client_credentials'],
};

/**
 * oidc-provider client metadata of an application. `client_secret` is the stored SHA-256 digest: the
 * plain secret is never kept, and `compareClientSecret` is replaced to compare digests.
 */
export function toClientMetadata(app: ApplicationRecord, alg: string): ClientMetadata {
  const interactive = app.type !== 'MachineToMachine';
  const metadata: ClientMetadata = {
    client_id: app.id,
    client_name: app.name,
    application_type: app.type === 'Native' ? 'native' : 'web',
    grant_types: app.tokenExchangeEnabled
      ? [...GRANT_TYPES[app.type], TOKEN_EXCHANGE_GRANT_TYPE]
      : GRANT_TYPES[app.type],
    response_types: interactive ? ['code'] : [],
    redirect_uris: interactive ? [...app.redirectUris] : [],
    post_logout_redirect_uris: interactive ? [...app.postLogoutRedirectUris] : [],
    token_endpoint_auth_method: app.tokenEndpointAuthMethod,
    id_token_signed_response_alg: alg as ClientMetadata['id_token_signed_response_alg'],
    // RFC 9449 §5.2: token requests without a DPoP proof are refused (invalid_request, see dpop.ts).
    dpop_bound_access_tokens: app.dpopBoundAccessTokens,
  };
  if (app.tokenEndpointAuthMethod !== 'none') metadata.client_secret = app.secretHash ?? '';
  return metadata;
}

/** Everything the provider configuration needs. */
export interface ProviderDeps {
  readonly config: ResolvedConfig;
  readonly store: Store;
  readonly keys: KeySet;
  readonly cookieKeys: readonly string[];
  /** The DPoP nonce secret shared by every instance (32 bytes, see `dpop.ts`). */
  readonly dpopNonceSecret: Buffer;
  readonly log: Logger;
  /** `getCustomJwtClaims`, when configured. */
  readonly customClaims?: CustomClaims | undefined;
}

function setPageHeaders(ctx: KoaContextWithOIDC): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) ctx.set(name, value);
}

async function findAccount(store: Store, id: string): Promise<Account | undefined> {
  const user = await store.users.get(id);
  if (user === undefined || user.suspended) return undefined;
  return {
    accountId: user.id,
    async claims() {
      return {
        sub: user.id,
        preferred_username: user.username,
        updated_at: user.updatedAt,
        ...(user.email === null ? {} : { email: user.email, email_verified: false }),
      };
    },
  };
}

/** Build the oidc-provider configuration. */
export function buildConfiguration(deps: ProviderDeps): Configuration {
  const { config, store, keys } = deps;
  const alg = keys.signing[0]?.alg ?? config.keys.algorithm;
  const findClient = async (id: string): Promise<AdapterPayload | undefined> => {
    const app = await findApplication(store, id);
    return app === undefined ? undefined : (toClientMetadata(app, alg) as AdapterPayload);
  };
  return {
    adapter: createAdapter(store, findClient),
    findAccount: (_ctx, sub) => findAccount(store, sub),
    jwks: { keys: keys.signing.map((jwk) => ({ ...jwk })) as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: [...deps.cookieKeys],
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    claims: CLAIMS,
    scopes: [...OIDC_SCOPES],
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg as ClientMetadata['id_token_signed_response_alg'],
    },
    enabledJWA: {
      idTokenSigningAlgValues: [alg],
      userinfoSigningAlgValues: [alg],
      introspectionSigningAlgValues: [alg],
      authorizationSigningAlgValues: [alg],
      clientAuthSigningAlgValues: [],
      requestObjectSigningAlgValues: [],
      dPoPSigningAlgValues: [...DEFAULTS.dpop.signingAlgorithms],
    } as Configuration['enabledJWA'],
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    // Browser apps (public clients) may call the token endpoint from their own origins, as may any
    // client at userinfo: an origin is allowed when it is the origin of one of the client's registered
    // redirect URIs. Set explicitly so oidc-provider does not print its "default policy" notice.
    clientBasedCORS: (ctx, origin, client) => {
      if (origin === 'null') return false;
      if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
      return (client.redirectUris ?? []).some((uri) => URL.canParse(uri) && new URL(uri).origin === origin);
    },
    features: {
      devInteractions: { enabled: false },
      // OIDC Core §5.5, for the claims about the sign-in only: an essential acr is stepped up or
      // refused, never answered with a weaker level (claims-parameter.ts, step-up.ts).
      claimsParameter: {
        enabled: true,
        assertClaimsParameter: claimsParameterAssertion(SUPPORTED_ACR_VALUES),
      },
      clientCredentials: { enabled: true },
      // RFC 9449, always on: a valid proof binds the tokens to its key (see dpop.ts).
      dPoP: {
        enabled: true,
        nonceSecret: deps.dpopNonceSecret,
        requireNonce: () => config.dpop.requireNonce,
        allowReplay: false,
      },
      introspection: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => mayIntrospect(client, token.clientId),
      },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          setPageHeaders(ctx);
          ctx.body = renderLogout(form, ctx.host);
        },
        postLogoutSuccessSource: async (ctx) => {
          setPageHeaders(ctx);
          ctx.body = renderLoggedOut(ctx.oidc.client?.clientName);
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (ctx, _client, oneOf) => defaultResource(ctx, oneOf),
        getResourceServerInfo: async (ctx, indicator, client) => {
          const info = await resourceServerInfo(store, ctx, indicator, client);
          // The Management API validates its tokens locally: they stay JWTs whatever the setting.
          return indicator === config.managementAudience
            ? info
            : { ...info, accessTokenFormat: config.accessTokenFormat };
        },
        useGrantedResource: async () => false,
      },
    },
    formats: {
      customizers: {
        jwt: async (ctx, token, jwt) => {
          // RFC 8693 §4.1: `act` is only ever the verified actor; nothing else may set it.
          delete jwt.payload.act;
          const exchange = getExchangeState(ctx);
          if (exchange?.act !== undefined) jwt.payload.act = exchange.act;
          authenticationClaims(ctx, jwt.payload);
          await deps.customClaims?.apply(ctx, token, jwt.payload);
          await applyRolesClaim(store, deps.log, ctx, token, jwt.payload);
        },
      },
    },
    acrValues: [...SUPPORTED_ACR_VALUES],
    interactions: {
      policy: stepUpPolicy(),
      url: async (_ctx, interaction) => `${config.baseUrl}/interaction/${interaction.uid}`,
    },
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    rotateRefreshToken: true,
    revokeGrantPolicy: (ctx) =>
      !(ctx.oidc.route === 'revocation' && ctx.oidc.entities.AccessToken !== undefined),
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? config.ttl.accessToken,
      ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? config.ttl.accessToken,
      AuthorizationCode: config.ttl.authorizationCode,
      IdToken: config.ttl.idToken,
      RefreshToken: config.ttl.refreshToken,
      Session: config.ttl.session,
      Grant: config.ttl.grant,
      Interaction: config.ttl.interaction,
    },
    renderError: async (ctx, out) => {
      setPageHeaders(ctx);
      ctx.body = renderError(
        String(out.error),
        out.error_description === undefined ? undefined : boundDescription(String(out.error_description)),
      );
    },
  };
}

/** OAuth errors worth a log line, by provider event name. Values are never logged, only codes. */
const ERROR_EVENTS = [
  'authorization.error',
  'grant.error',
  'introspection.error',
  'revocation.error',
  'userinfo.error',
  'end_session.error',
  'backchannel.error',
  'jwks.error',
  'discovery.error',
] as const;

interface OAuthErrorLike {
  error?: unknown;
  error_description?: unknown;
  status?: unknown;
}

/**
 * Construct the provider: configuration, hashed-secret comparison, proxy trust and event logging.
 *
 * @example
 * ```ts
 * const provider = createProvider({ config, store, keys, cookieKeys, dpopNonceSecret, log });
 * http.createServer(provider.callback());
 * ```
 */
export function createProvider(deps: ProviderDeps): Provider {
  const provider = new Provider(deps.config.issuer, buildConfiguration(deps));
  provider.proxy = deps.config.trustProxy;
  pinPublicOrigin(provider, deps.config.baseUrl);
  installDpop(provider, deps.store);
  installImpersonationIntrospection(provider, deps.store, deps.log, epoch);
  reuseTokenClients(provider, deps.store);
  // Secrets are stored as SHA-256 digests: compare the digest of the presented secret (catalogue B49, B50).
  provider.Client.prototype.compareClientSecret = async function compareClientSecret(
    this: { clientSecret?: string },
    actual: string,
  ) {
    return typeof actual === 'string' && verifySecret(actual, this.clientSecret ?? '');
  };
  // RFC 6749 §5.2: a client not allowed a grant type gets unauthorized_client (oidc-provider says invalid_request).
  // Every error body echoes a bounded part of the request only (error-echo.ts).
  provider.use(async (ctx, next) => {
    await next();
    const bounded = boundErrorBody(ctx.body);
    if (bounded !== ctx.body) ctx.body = bounded;
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (
      ctx.oidc?.route === 'token' &&
      ctx.status === 400 &&
      body?.error === 'invalid_request' &&
      body.error_description === GRANT_NOT_ALLOWED
    ) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  });
  const log = deps.log;
  const on = provider.on.bind(provider) as (event: string, listener: (...args: never[]) => void) => unknown;
  for (const event of ERROR_EVENTS) {
    on(event, (_ctx: unknown, err: OAuthErrorLike) => {
      // The issuer answers introspection and revocation of JWTs itself (grants/impersonation-introspection.ts).
      const jwtRefusal = event === 'introspection.error' || event === 'revocation.error';
      if (jwtRefusal && err.error === 'unsupported_token_type') return;
      log.info(
        { event, error: err.error, description: err.error_description, status: err.status },
        'oauth error',
      );
    });
  }
  on('server_error', (_ctx: unknown, err: Error) => {
    // Already logged (by category only) where it happened; its cause is user code and stays out of logs.
    if (err instanceof CustomClaimsError) return;
    log.error(
      { event: 'server_error', err: { type: err.name, message: err.message, stack: err.stack } },
      'oidc-provider error',
    );
  });
  on('grant.success', (ctx: KoaContextWithOIDC) => {
    log.info(
      { event: 'grant.success', grantType: ctx.oidc.params?.grant_type, clientId: ctx.oidc.client?.clientId },
      'token issued',
    );
  });
  return provider;
}
