/**
 * oidc-provider client metadata of an application: grant types per application type (plus RFC 8693
 * token exchange where it is enabled), redirect URIs for interactive applications, the stored secret
 * digest, the ID token algorithm and DPoP binding.
 *
 * @module
 */
import type { ClientMetadata } from 'oidc-provider';
import { TOKEN_EXCHANGE_GRANT_TYPE } from '../grants/token-exchange.js';
import type { ApplicationRecord } from '../storage/store.js';

/** Grant types per application type. */
const GRANT_TYPES: Readonly<Record<ApplicationRecord['type'], string[]>> = {
  SPA: ['authorization_code', 'refresh_token'],
  Native: ['authorization_code', 'refresh_token'],
  Traditional: ['authorization_code', 'refresh_token'],
  MachineToMachine: ['client_credentials'],
};

/**
 * oidc-provider client metadata of an application. `client_secret` is the stored SHA-256 digest: the
 * plain secret is never kept, and `compareClientSecret` is replaced to compare digests (provider.ts).
 *
 * @example
 * ```ts
 * await provider.Client.validate(toClientMetadata(app, keys.signing[0]!.alg));
 * ```
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
