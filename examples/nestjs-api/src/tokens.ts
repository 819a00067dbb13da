/**
 * Injection tokens of the app's own providers. Every injection names its token: the server is compiled
 * by esbuild, which emits no decorator metadata for Nest to infer types from.
 *
 * @module
 */

/** The `Logger` audit and error lines go to. */
export const LOGGER = Symbol('logger');
/** The app's `OrderStore`. */
export const STORE = Symbol('orders');
