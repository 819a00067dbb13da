/**
 * `@gatehouse/client`: sign users in (authorization code + PKCE), get one access token per API
 * resource, and perform RFC 8693 impersonation exchanges — in the browser and in Node, on
 * oauth4webapi.
 *
 * @example
 * ```ts
 * import { createClient } from '@gatehouse/client';
 *
 * const client = createClient({
 *   endpoint: 'https://id.example.com',
 *   clientId: 'support-console',
 *   redirectUri: 'https://console.example.com/callback',
 *   resources: ['https://orders.example.com'],
 *   scopes: ['read:orders'],
 * });
 * const token = await client.getAccessToken('https://orders.example.com');
 * ```
 *
 * @module
 */
export { type Client, createClient } from './client.js';
export { DEFAULTS, DPOP_ALGORITHMS, type DpopAlgorithm, MAX_EXPIRY_LEEWAY } from './defaults.js';
export {
  type AnyClientError,
  ClientError,
  type ClientErrorReason,
  isClientError,
  NetworkError,
  NotSignedInError,
  type OAuthEndpoint,
  OAuthResponseError,
  ServerResponseError,
  SignInCallbackError,
  type SignInCallbackReason,
  UnknownResourceError,
} from './errors.js';
export { ACCESS_TOKEN_TYPE, PERSONAL_ACCESS_TOKEN_TYPE, TOKEN_EXCHANGE_GRANT_TYPE } from './exchange.js';
export type { FetchTokenSource } from './fetch.js';
export {
  type ClientOptions,
  type DpopClientOptions,
  type FetchLike,
  type ResolvedDpopOptions,
  type ResolvedOptions,
  resolveOptions,
} from './options.js';
export { type StepUpChallenge, stepUpChallenge } from './step-up.js';
export { type ClientStorage, createMemoryStorage, isClientStorage, type StorageOption } from './storage.js';
export type {
  ExchangeRequest,
  ExchangeResult,
  IdTokenClaims,
  SignInOptions,
  SignOutOptions,
} from './types.js';
