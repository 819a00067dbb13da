/**
 * `ResolvedConfig` → oidc-provider `Configuration`. This and `client-metadata.ts` are the only files
 * that use oidc-provider's configuration keys and client metadata names.
 *
 * Security defaults set here: PKCE (S256) required for every client; only `code` responses;
 * `client_secret_basic`, `client_secret_post` and `none` client authentication (secrets compared by
 * digest, see provider.ts); HMAC algorithms disabled (they would need the plain secret); refresh tokens
 * rotated on every use; a replayed code or refresh token revokes its grant; development interactions
 * off. Just before a JWT access token is signed, `act` is set from the verified actor of a token
 * exchange (and from nothing else), `acr` and `auth_time` from the sign-in behind an authorization
 * code or refresh token (and from nothing else), then `getCustomJwtClaims` adds its claims when
 * configured (never a reserved one), then the `roles` claim is written. The `claims` parameter is
 * honoured for `acr` and `auth_time` only.
 *
 * @module
 */
import type {
  Account,
  AdapterPayload,
  ClientMetadata,
  Configuration,
  KoaContextWithOIDC,
} from 'oidc-provider';
import type { Logger } from 'pino';
import { OIDC_SCOPES } from '../config/constants.js';
import { DEFAULTS } from '../config/defaults.js';
import type { CustomClaims } from '../customize/claims.js';
import { getExchangeState } from '../grants/exchange-state.js';
import { mayIntrospect } from '../grants/impersonation-introspection.js';
import { defaultResource, resourceServerInfo } from '../grants/resources.js';
import { applyRolesClaim } from '../grants/roles-claim.js';
import { findApplication } from '../grants/token-request.js';
import { claimsParameterAssertion } from '../interactions/claims-parameter.js';
import { authenticationClaims, SUPPORTED_ACR_VALUES, stepUpPolicy } from '../interactions/step-up.js';
import { PAGE_HEADERS } from '../interactions/views/layout.js';
import { renderError, renderLoggedOut, renderLogout } from '../interactions/views/message.js';
import { boundDescription } from '../internal/error-echo.js';
import type { ResolvedConfig } from '../issuer-config.js';
import type { KeySet } from '../keys.js';
import { createAdapter } from '../storage/adapter.js';
import type { Store } from '../storage/store.js';
import { toClientMetadata } from './client-metadata.js';

/** Claims released per OpenID scope. */
const CLAIMS = {
  openid: ['sub'],
  profile: ['preferred_username', 'updated_at'],
  email: ['email', 'email_verified'],
};

/**
 * Everything the provider configuration needs.
 *
 * @example
 * ```ts
 * const deps: ProviderDeps = { config, store, keys, cookieKeys, dpopNonceSecret, log };
 * ```
 */
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

/**
 * Build the oidc-provider configuration.
 *
 * @example
 * ```ts
 * const provider = new Provider(deps.config.issuer, buildConfiguration(deps));
 * ```
 */
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
      // refused, never answered with a weaker level (interactions/claims-parameter.ts and step-up.ts).
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
