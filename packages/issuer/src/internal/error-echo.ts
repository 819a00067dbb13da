/**
 * Bounded error answers: an OAuth error never echoes more than a bounded part of the request. The
 * `scope` member (`invalid_scope` lists the scopes that were refused) keeps at most
 * `DEFAULTS.responses.maxEcho` characters, cut at a whole scope; `error_description` at most
 * `DEFAULTS.responses.maxErrorDescription`. A request asking for 5,000 scopes gets a short answer,
 * not its own 29 KB back.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';

const ELLIPSIS = '…';

/**
 * `scopes` (a space-separated list) cut to at most `max` characters at a scope boundary, ending with
 * `…` when anything was dropped.
 *
 * @example
 * ```ts
 * boundScopes('read write admin', 12); // 'read write …'
 * ```
 */
export function boundScopes(scopes: string, max: number = DEFAULTS.responses.maxEcho): string {
  if (scopes.length <= max) return scopes;
  const room = max - ELLIPSIS.length - 1;
  const cut = scopes.lastIndexOf(' ', room);
  return `${cut > 0 ? scopes.slice(0, cut) : scopes.slice(0, room)} ${ELLIPSIS}`;
}

/**
 * `text` cut to at most `max` characters, ending with `…` when it was longer.
 *
 * @example
 * ```ts
 * boundDescription('x'.repeat(1000)).length; // 512
 * ```
 */
export function boundDescription(text: string, max: number = DEFAULTS.responses.maxErrorDescription): string {
  return text.length <= max ? text : `${text.slice(0, max - ELLIPSIS.length)}${ELLIPSIS}`;
}

/**
 * An OAuth error body (`{ error, error_description?, scope? }`) with its echoed members bounded; any
 * other value is returned as it is.
 *
 * @example
 * ```ts
 * ctx.body = boundErrorBody(ctx.body);
 * ```
 */
export function boundErrorBody<T>(body: T): T {
  if (body === null || typeof body !== 'object' || typeof (body as { error?: unknown }).error !== 'string')
    return body;
  const { error_description: description, scope } = body as { error_description?: unknown; scope?: unknown };
  const long =
    (typeof description === 'string' && description.length > DEFAULTS.responses.maxErrorDescription) ||
    (typeof scope === 'string' && scope.length > DEFAULTS.responses.maxEcho);
  if (!long) return body;
  return {
    ...body,
    ...(typeof description === 'string' ? { error_description: boundDescription(description) } : {}),
    ...(typeof scope === 'string' ? { scope: boundScopes(scope) } : {}),
  };
}
