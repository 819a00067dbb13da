/**
 * Values that are synchronous on Node (`crypto.verify`, `createPublicKey`) and promises on WebCrypto:
 * the shared code continues with {@link andThen}, so the Node path stays free of promises.
 *
 * @module
 */

/** A value, or a promise of it. */
export type Maybe<T> = T | Promise<T>;

/** Apply `next` now when `value` is ready, else once it resolves. */
export function andThen<T, U>(value: Maybe<T>, next: (value: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
