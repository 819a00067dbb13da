/**
 * The names the issuer's traces use: its instrumentation scope, its span names and every attribute
 * key. OpenTelemetry's semantic conventions where they have a name (HTTP server spans, database client
 * spans); `gatehouse.*` for what they do not cover. Stable within a major version; docs/observability.md
 * lists them ("Issuer: traces").
 *
 * @module
 */

/**
 * Every OpenTelemetry name the issuer's tracing emits.
 *
 * - `scope`: the instrumentation scope (tracer name).
 * - `spans`: the names of the spans that are not named after a request or a statement. A request's
 *   SERVER span is named `{method} {http.route}` (`POST /oidc/token`), or `{method}` alone when no
 *   route matched; a statement's CLIENT span is named after its `db.query.summary` (`SELECT users`).
 * - `attributes`: the attribute keys.
 *
 * @example
 * ```ts
 * import { TRACING_NAMES } from '@gatehouse/issuer';
 *
 * const grants = exporter.getFinishedSpans().filter((s) => s.name === TRACING_NAMES.spans.grant);
 * ```
 */
export const TRACING_NAMES = Object.freeze({
  scope: '@gatehouse/issuer',
  spans: Object.freeze({
    /** Token endpoint: from the client's lookup to its authentication (secret, assertion) being done. */
    clientAuthentication: 'oidc.client_authentication',
    /** A client lookup outside the token endpoint (authorization, introspection…). */
    clientLookup: 'oidc.client.find',
    /** Token endpoint: the grant type's handler (checks, claims, issuing). */
    grant: 'oidc.grant',
    /** A token, code or grant being issued (saved, or signed for a JWT access token). */
    issue: 'oidc.token.issue',
    /** Sign-in: oidc-provider reading the interaction of the request. */
    interactionDetails: 'oidc.interaction.details',
    /** Sign-in: oidc-provider finishing the interaction (its result saved, the redirect back). */
    interactionFinish: 'oidc.interaction.finish',
    /** Sign-in: the identifier and password checked (rate limits, lock-out, password hash). */
    signIn: 'gatehouse.sign_in.authenticate',
    /** A database transaction; its statements are its children. */
    transaction: 'db.transaction',
  }),
  attributes: Object.freeze({
    /** HTTP server spans (OpenTelemetry's HTTP conventions). */
    httpMethod: 'http.request.method',
    httpMethodOriginal: 'http.request.method_original',
    httpRoute: 'http.route',
    httpStatus: 'http.response.status_code',
    urlPath: 'url.path',
    urlScheme: 'url.scheme',
    errorType: 'error.type',
    /** Database client spans (OpenTelemetry's database conventions). */
    dbSystem: 'db.system.name',
    dbOperation: 'db.operation.name',
    dbCollection: 'db.collection.name',
    dbSummary: 'db.query.summary',
    /** The OAuth error code a protocol request was answered with (`invalid_client`…). */
    oauthError: 'gatehouse.oauth.error',
    /** The grant type of a token request. */
    grantType: 'gatehouse.oauth.grant_type',
    /** The client of a protocol request, once it is known (client id, never a secret). */
    clientId: 'gatehouse.oauth.client_id',
    /** What an `oidc.token.issue` span issues: oidc-provider's model name (`AccessToken`…). */
    model: 'gatehouse.oidc.model',
    /** How a sign-in attempt ended: `success`, `invalid`, `locked`, `busy`… */
    signInOutcome: 'gatehouse.sign_in.outcome',
  }),
});
