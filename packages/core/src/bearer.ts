/**
 * RFC 6750 §2 token extraction, shared by every adapter.
 *
 * - `Authorization: Bearer <b64token>`, or `Authorization: DPoP <b64token>` (RFC 9449 §7.1) when the
 *   verifier accepts DPoP; schemes are case-insensitive (RFC 9110 §11.1).
 * - Another scheme (`Basic`, …), or `Bearer` with nothing after it, means "no bearer token".
 * - A credential that breaks the b64token syntax (`Bearer a b`, control characters, a separator other
 *   than spaces after the scheme) is `invalid_request`. Only SP and HTAB around the value are trimmed.
 * - `access_token` in the query (§2.3) or a form body (§2.2) is read only when enabled.
 * - More than one token source, or more than one `Authorization` header, is `invalid_request`
 *   (§2: clients must not use more than one method), whether or not those sources are enabled.
 *
 * @module
 */
import { type ErrorContext, InvalidRequestError } from './errors.js';
import { countHeaderLines } from './internal/headers.js';
import type { TokenSourceOptions } from './options.js';
import type { RequestLike } from './types.js';

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** The `Bearer` scheme, case-insensitive (RFC 9110 §11.1), not followed by another token character. */
const BEARER_SCHEME = /^bearer(?![!#$%&'*+.^_`|~0-9A-Za-z-])/i;
/** The `DPoP` scheme (RFC 9449 §7.1), likewise. */
const DPOP_SCHEME = /^dpop(?![!#$%&'*+.^_`|~0-9A-Za-z-])/i;

/** A token found in a request, and the scheme it came with (`bearer` for the query and body too). */
export interface Credentials {
  readonly scheme: 'bearer' | 'dpop';
  readonly token: string;
  /**
   * Set when the b64token syntax of `token` is still to be checked (see {@link findCredentials}): the
   * caller checks it with {@link checkTokenSyntax} unless the token is one it already verified.
   */
  readonly unchecked?: true;
}

/** Options of {@link extractBearerToken}. */
export interface ExtractOptions extends TokenSourceOptions {
  /** Realm and metadata URL for the challenge of any error thrown. */
  context?: ErrorContext;
}

function header(req: RequestLike, name: string): string | undefined {
  const raw = req.headers[name];
  const value: unknown = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : undefined;
}

const isOws = (c: number): boolean => c === 0x20 || c === 0x09;

/** Strip optional whitespace (SP / HTAB, RFC 9110 §5.6.3) only: other control characters stay and fail the syntax check. */
function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isOws(value.charCodeAt(start))) start++;
  while (end > start && isOws(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

const present = (token: unknown): boolean => token !== undefined && token !== '';

function queryToken(query: RequestLike['query']): unknown {
  if (query === undefined || query === null) return undefined;
  if (query instanceof URLSearchParams) {
    const all = query.getAll('access_token');
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  }
  return Object.hasOwn(query, 'access_token') ? query.access_token : undefined;
}

function bodyToken(req: RequestLike): unknown {
  const body = req.body;
  if (body === null || typeof body !== 'object') return undefined;
  return Object.hasOwn(body, 'access_token') ? (body as Record<string, unknown>).access_token : undefined;
}

/**
 * Find the bearer token of a request. Returns `undefined` when the request carries none; throws
 * {@link InvalidRequestError} for a malformed credential or several sources.
 *
 * @example
 * ```ts
 * import { extractBearerToken } from '@gatehouse/core';
 *
 * const token = extractBearerToken({ headers: req.headers, rawHeaders: req.rawHeaders });
 * if (token === undefined) { /* answer 401 with a bare challenge *\/ }
 * ```
 */
export function extractBearerToken(req: RequestLike, options: ExtractOptions = {}): string | undefined {
  return findCredentials(req, options, false, false)?.token;
}

/**
 * {@link extractBearerToken} with the `DPoP` scheme when `dpop` is set, and a way to leave the
 * b64token syntax of an `Authorization` credential to the caller (`deferSyntax`): the verifier skips
 * the scan for a token in its result cache, since a verified compact JWS only holds base64url
 * characters and dots, a subset of b64token, and checks any other with {@link checkTokenSyntax}
 * before verifying it. Only the common case is deferred — a header credential and no other source —
 * so errors come in the same order either way. Not exported from the package.
 */
export function findCredentials(
  req: RequestLike,
  options: ExtractOptions,
  deferSyntax: boolean,
  dpop: boolean,
): Credentials | undefined {
  const context = options.context;

  const authorizations = req.headers.authorization;
  if (
    countHeaderLines(req.rawHeaders, 'authorization') > 1 ||
    (Array.isArray(authorizations) && authorizations.length > 1)
  ) {
    throw new InvalidRequestError('multiple_tokens', context);
  }

  let fromHeader: string | undefined;
  let scheme: Credentials['scheme'] = 'bearer';
  const authorization = header(req, 'authorization');
  if (authorization !== undefined) {
    const value = trimOws(authorization);
    const length = BEARER_SCHEME.test(value) ? 6 : dpop && DPOP_SCHEME.test(value) ? 4 : 0;
    // The scheme alone means no token; otherwise 1*SP must separate the scheme from a b64token.
    if (length > 0 && value.length > length) {
      if (value.charCodeAt(length) !== 0x20) throw new InvalidRequestError('bad_syntax', context);
      let at = length + 1;
      while (value.charCodeAt(at) === 0x20) at++;
      fromHeader = value.slice(at);
      if (length === 4) scheme = 'dpop';
    }
  }

  const inQuery = queryToken(req.query);
  let inBody: unknown;
  const contentType = header(req, 'content-type');
  if (contentType !== undefined && req.body !== undefined && req.body !== null) {
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
    if (mediaType === 'application/x-www-form-urlencoded' && req.method?.toUpperCase() !== 'GET')
      inBody = bodyToken(req);
  }

  if (inQuery === undefined && inBody === undefined) {
    if (fromHeader === undefined) return undefined;
    if (deferSyntax) return { scheme, token: fromHeader, unchecked: true };
  }
  if (fromHeader !== undefined) checkTokenSyntax(fromHeader, context);
  const found = fromHeader === undefined ? undefined : { scheme, token: fromHeader };
  if (inQuery === undefined && inBody === undefined) return found;
  const sources = (fromHeader !== undefined ? 1 : 0) + (present(inQuery) ? 1 : 0) + (present(inBody) ? 1 : 0);
  if (sources > 1 || Array.isArray(inQuery) || Array.isArray(inBody))
    throw new InvalidRequestError('multiple_tokens', context);
  if (found !== undefined) return found;

  // At most one source holds a non-empty value here; read it only when that source is enabled.
  const candidate =
    options.query === true && present(inQuery)
      ? inQuery
      : options.body === true && present(inBody)
        ? inBody
        : undefined;
  if (candidate === undefined) return undefined;
  if (typeof candidate !== 'string' || !B64TOKEN.test(candidate))
    throw new InvalidRequestError('bad_syntax', context);
  return { scheme: 'bearer', token: candidate };
}

/**
 * Throw `invalid_request` (`bad_syntax`) unless `token` is a b64token (RFC 6750 §2.1): the check
 * {@link findCredentials} leaves to its caller with `deferSyntax`. Not exported from the package.
 */
export function checkTokenSyntax(token: string, context: ErrorContext | undefined): void {
  if (!B64TOKEN.test(token)) throw new InvalidRequestError('bad_syntax', context);
}
