/**
 * Per-call options (`verify(token, { scopes })`, `authenticate(req, { optional })`,
 * `authorize(info, { roles })`) refuse keys nobody reads, like every other options object: a typo such
 * as `{ scope: 'admin:all' }` for `scopes` would otherwise verify the token *without* the requirement.
 *
 * The check runs on every call whose options are a plain object (a few nanoseconds per key). Options
 * prepared once — by {@link callOptions}, `resolveScopeRequirement()`, `resolveRoleRequirement()`, or
 * an adapter — are checked when made, frozen, and carry a private mark that lets the verifier skip
 * the check on the request path.
 *
 * @module
 */
import { closest } from './internal/known-keys.js';
import { STEP_UP_OPTIONS } from './step-up.js';

/** Marks options checked once and frozen ({@link callOptions}). Not enumerable, never serialized. */
const CHECKED: unique symbol = Symbol('gatehouse.checkedCallOptions');

/** Keys of `VerifyOptions` (`verify()`, `authorize()`). */
export const VERIFY_OPTION_KEYS: ReadonlySet<string> = new Set([
  'scopes',
  'scopeMode',
  'roles',
  'roleMode',
  'allowDelegation',
  ...STEP_UP_OPTIONS,
]);
/**
 * Keys of `AuthenticateOptions` (`authenticate()`, `authenticateNow()`): those of `VerifyOptions`,
 * `optional`, and the WHATWG request's `origin` and `clientCertificate`.
 */
export const AUTHENTICATE_OPTION_KEYS: ReadonlySet<string> = new Set([
  ...VERIFY_OPTION_KEYS,
  'optional',
  'origin',
  'clientCertificate',
]);

/**
 * Throw a `TypeError` naming the first key of `call` that is not in `known` (with the closest known
 * one), unless `call` was made by {@link callOptions}.
 *
 * @example
 * ```ts
 * checkCallOptions({ scope: 'admin:all' }, VERIFY_OPTION_KEYS, 'verify');
 * // TypeError: verify: unknown option "scope" (did you mean "scopes"?)
 * ```
 */
export function checkCallOptions(call: object, known: ReadonlySet<string>, where: string): void {
  if (typeof call !== 'object' || call === null) throw new TypeError(`${where}: options must be an object`);
  if ((call as { [CHECKED]?: true })[CHECKED] === true) return;
  for (const key in call) {
    if (known.has(key)) continue;
    const match = closest(key, known);
    throw new TypeError(
      `${where}: unknown option "${key}"${match === undefined ? '' : ` (did you mean "${match}"?)`}`,
    );
  }
}

/**
 * Check per-call options once and freeze them, marked so that the verifier does not check them again
 * on every request: for options a route or middleware reuses. Throws a `TypeError` naming an unknown
 * key.
 *
 * @example
 * ```ts
 * import { callOptions, createVerifier } from '@gatehouse/core';
 *
 * const adminOnly = callOptions({ scopes: ['admin:all'] });
 * app.get('/admin', async (req, res) => {
 *   const auth = await verifier.authenticate(req, adminOnly);
 *   res.json({ subject: auth?.subject });
 * });
 * ```
 */
export function callOptions<T extends object>(options: T): Readonly<T> {
  checkCallOptions(options, AUTHENTICATE_OPTION_KEYS, 'callOptions');
  if ((options as { [CHECKED]?: true })[CHECKED] === true) return options;
  const copy = { ...options };
  Object.defineProperty(copy, CHECKED, { value: true, enumerable: false });
  return Object.freeze(copy);
}
