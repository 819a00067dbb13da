/**
 * `@gatehouse/core`: validate OAuth 2.0 JWT access tokens in a fixed order, with a cached remote JWKS,
 * typed RFC 6750 errors and the RFC 8693 actor chain.
 *
 * @example
 * ```ts
 * import { createVerifier, toAuditRecord } from '@gatehouse/core';
 *
 * const verifier = createVerifier({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * const auth = await verifier.verify(token, { scopes: 'read:orders' });
 * log.info(toAuditRecord(auth));
 * ```
 *
 * @module
 */
export { actorChain, MAX_ACTOR_DEPTH, parseActor } from './actor.js';
export {
  ADAPTER_DEFAULTS,
  ADAPTER_OPTIONS,
  type AdapterSwitches,
  type ResolvedAdapterOptions,
  type RoleRequirementOptions,
  resolveAdapterOptions,
  resolveRoleRequirement,
  resolveScopeRequirement,
  type ScopeRequirementOptions,
} from './adapter-options.js';
export { type AuditRecord, toAuditRecord } from './audit.js';
export type { VerifyOptions } from './authorization.js';
export { type ExtractOptions, extractBearerToken } from './bearer.js';
export { callOptions } from './call-options.js';
export { buildChallenge, type ChallengeParams, sanitizeChallengeValue } from './challenge.js';
export {
  DEFAULTS,
  type DpopMode,
  type IntrospectionMode,
  MAX_CLOCK_TOLERANCE,
  type MtlsMode,
  SUPPORTED_ALGORITHMS,
} from './defaults.js';
export type {
  DpopNonceOptions,
  DpopOptions,
  MtlsOptions,
  ResolvedDpopOptions,
  ResolvedMtlsOptions,
} from './dpop-options.js';
export { errorResponse } from './error-response.js';
export {
  type AnyAuthError,
  AudienceMismatchError,
  AuthError,
  type AuthErrorReason,
  type DpopProofReason,
  type ErrorContext,
  ForbiddenError,
  InsufficientRoleError,
  InsufficientScopeError,
  InsufficientUserAuthenticationError,
  IntrospectionUnavailableError,
  InvalidDpopProofError,
  InvalidRequestError,
  InvalidTokenError,
  type InvalidTokenReason,
  IssuerUnavailableError,
  isAuthError,
  KeySetError,
  type KeySetErrorCode,
  KeysUnavailableError,
  MissingTokenError,
  type OAuthErrorCode,
  ReplayStoreUnavailableError,
  UnavailableError,
  UseDpopNonceError,
} from './errors.js';
export type { FetchRequestOptions } from './fetch-request.js';
export { closest as closestName, rejectUnknownKeys as rejectUnknownOptions } from './internal/known-keys.js';
export { PLATFORM } from './internal/platform.js';
export type {
  IntrospectionClientAuth,
  IntrospectionOptions,
  IntrospectionServer,
} from './introspection/options.js';
export type {
  IssuerCacheOptions,
  IssuerOptions,
  IssuerResolver,
  ResolvedIssuer,
} from './issuer-options.js';
export type { IssuerState, KeyStats } from './issuers.js';
export type { KeySet, KeySetStats } from './jwks.js';
export type { JwksOptions } from './jwks-options.js';
export {
  type CacheOptions,
  type ClaimCheck,
  type ResolvedOptions,
  resolveOptions,
  type TokenSourceOptions,
  type VerifierOptions,
} from './options.js';
export { MemoryReplayStore, type MemoryReplayStoreOptions, type ReplayStore } from './replay-store.js';
export { peerCertificate, requestUrl } from './request-binding.js';
export {
  type BearerMethod,
  createProtectedResource,
  createResourceMetadata,
  type OwnVerifierOptions,
  type ProtectedResource,
  type ProtectedResourceMetadata,
  type ProtectedResourceOptions,
  RESOURCE_METADATA_PATH,
  type ResourceMetadata,
  type ResourceMetadataDefaults,
  type ResourceMetadataOptions,
  resourceMetadataUrl,
  type SharedVerifierOptions,
} from './resource-metadata.js';
export { hasRoles, MAX_TOKEN_ROLES, parseRoles, type RoleMode, toRoleList } from './roles.js';
export { hasScopes, parseScopes, type ScopeMode, toScopeList } from './scopes.js';
export {
  checkStepUp,
  resolveStepUp,
  resolveStepUpRequirement,
  STEP_UP_OPTIONS,
  type StepUpOptions,
  type StepUpRequirement,
} from './step-up.js';
export { TELEMETRY_NAMES } from './telemetry/names.js';
export type { ResolvedTelemetryOptions, TelemetryOptions } from './telemetry/options.js';
export type {
  MeterProviderLike,
  OpenTelemetryApiLike,
  TracerProviderLike,
} from './telemetry/types.js';
export { certificateThumbprint, jwkThumbprint } from './thumbprint.js';
export type { AccessTokenClaims, Actor, Algorithm, AuthInfo, Confirmation, RequestLike } from './types.js';
export { type AuthenticateOptions, createVerifier, type Verifier } from './verifier.js';
