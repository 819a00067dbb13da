/**
 * The one way option validation fails: a `TypeError` that names the option and says what it must be,
 * thrown when the verifier (or adapter) is created, never at request time.
 *
 * @module
 */

/** Throw `TypeError: "<option>" option <must>`. */
export const fail = (option: string, must: string): never => {
  throw new TypeError(`"${option}" option ${must}`);
};
