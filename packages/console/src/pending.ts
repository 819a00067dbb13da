/**
 * A change waiting for a fresh sign-in (catalogue F20; no DOM: unit-tested in Node). When the
 * Management API answers a change with 401 `insufficient_user_authentication`, the console signs the
 * person in again; what they were doing is kept in this tab's sessionStorage across the round trip —
 * the request (method, path, and a body of role or scope ids only: never a password, secret, token or
 * URL), who asked, and where they were — and offered again once they are back. Never a token.
 */

/** A Management API request. */
export interface ChangeRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/** A change waiting for a fresh sign-in. */
export interface PendingChange {
  /** Who asked for it: the change is offered again only to the same person. */
  readonly userId: string;
  /** The request to repeat; absent when its body may not be kept (then the person makes it again). */
  readonly request?: ChangeRequest | undefined;
  /** What it does, as a button label ("Rotate the signing key"). */
  readonly action: string;
  /** The console path (under its base path) to come back to. */
  readonly returnTo: string;
  /** When the sign-in was asked for (ms since the epoch). */
  readonly startedAt: number;
}

const KEY = 'gatehouse-console:pending-change';
/**
 * How long a pending change is offered again: longer than any sign-in takes, short enough to be current.
 *
 * @example
 * ```ts
 * if (Date.now() - pending.startedAt > PENDING_LIFETIME_MS) return;
 * ```
 */
export const PENDING_LIFETIME_MS = 15 * 60_000;
/** Body fields a pending request may keep: ids only. */
const KEPT_FIELDS = new Set(['roleIds', 'scopeIds']);

/** What each dangerous change does, by method and path: [button label, what happened, where to go after]. */
const ACTIONS: readonly [RegExp, string, string, string?][] = [
  [/^POST \/signing-keys\/rotate$/, 'Rotate the signing key', 'The signing key was rotated.'],
  [/^POST \/users\/[^/]+\/roles$/, 'Give the role', 'The role was given.'],
  [/^POST \/applications\/[^/]+\/roles$/, 'Give the role', 'The role was given.'],
  [/^POST \/roles\/[^/]+\/scopes$/, 'Add the scope to the role', 'The scope was added to the role.'],
  [/^POST \/webhooks$/, 'Register the webhook', 'The webhook was registered.'],
  [/^DELETE \/users\/[^/]+$/, 'Delete the user', 'The user was deleted.', '/users'],
  [
    /^DELETE \/applications\/[^/]+$/,
    'Delete the application',
    'The application was deleted.',
    '/applications',
  ],
];

/**
 * What a request does, for people: its button label, the sentence once done, and the console path to
 * show afterwards (when the page it was made on is gone).
 *
 * @example
 * ```ts
 * describeRequest({ method: 'POST', path: '/signing-keys/rotate' }).action; // 'Rotate the signing key'
 * ```
 */
export function describeRequest(request: ChangeRequest): {
  readonly action: string;
  readonly done: string;
  readonly after?: string | undefined;
} {
  const line = `${request.method} ${request.path.split('?')[0]}`;
  const found = ACTIONS.find(([pattern]) => pattern.test(line));
  if (found === undefined) return { action: 'Make the change', done: 'The change was made.' };
  return { action: found[1], done: found[2], after: found[3] };
}

/**
 * Whether a request's body may be kept across the sign-in: none, or ids only.
 *
 * @example
 * ```ts
 * keepable({ method: 'POST', path: '/users/u/roles', body: { roleIds: ['r'] } }); // true
 * keepable({ method: 'PUT', path: '/users/u/password', body: { password: '…' } }); // false
 * ```
 */
export function keepable(request: ChangeRequest): boolean {
  if (request.body === undefined) return true;
  if (request.body === null || typeof request.body !== 'object' || Array.isArray(request.body)) return false;
  return Object.entries(request.body).every(
    ([key, value]) =>
      KEPT_FIELDS.has(key) && Array.isArray(value) && value.every((id) => typeof id === 'string'),
  );
}

/**
 * Keep `pending` for after the sign-in; the request is dropped when its body may not be kept.
 *
 * @example
 * ```ts
 * savePending(sessionStorage, { userId, request, action, returnTo: location.pathname, startedAt: Date.now() });
 * ```
 */
export function savePending(storage: Pick<Storage, 'setItem'>, pending: PendingChange): void {
  const request = pending.request !== undefined && keepable(pending.request) ? pending.request : undefined;
  storage.setItem(KEY, JSON.stringify({ ...pending, request }));
}

/**
 * Take (and forget) the pending change, if there is a well-formed one younger than
 * {@link PENDING_LIFETIME_MS} whose return path is under `basePath`.
 *
 * @example
 * ```ts
 * const pending = takePending(sessionStorage, '/console', Date.now());
 * ```
 */
export function takePending(
  storage: Pick<Storage, 'getItem' | 'removeItem'>,
  basePath: string,
  now: number,
): PendingChange | undefined {
  const text = storage.getItem(KEY);
  storage.removeItem(KEY);
  if (text === null) return undefined;
  let value: Partial<PendingChange>;
  try {
    value = JSON.parse(text) as Partial<PendingChange>;
  } catch {
    return undefined;
  }
  const { userId, action, returnTo, startedAt, request } = value;
  if (
    typeof userId !== 'string' ||
    typeof action !== 'string' ||
    typeof returnTo !== 'string' ||
    typeof startedAt !== 'number' ||
    now - startedAt > PENDING_LIFETIME_MS ||
    now < startedAt ||
    // A path of this console only: never another origin ("//host") or another app on the origin.
    !returnTo.startsWith(`${basePath}/`) ||
    returnTo.startsWith('//')
  )
    return undefined;
  const valid =
    request !== undefined &&
    request !== null &&
    typeof request.method === 'string' &&
    typeof request.path === 'string' &&
    request.path.startsWith('/') &&
    keepable(request);
  return { userId, action, returnTo, startedAt, request: valid ? request : undefined };
}
