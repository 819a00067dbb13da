/**
 * Strict JSON object decoding for JOSE headers and JWT claim sets: valid UTF-8, a single JSON object,
 * and no duplicate member names at any depth (RFC 7515 §4, RFC 7519 §4; `JSON.parse` would silently
 * keep the last value).
 *
 * @module
 */
import { utf8Text } from './platform.js';

/** Count member names in JSON text: every string token followed by `:`. `text` must be valid JSON. */
function countTextMembers(text: string): number {
  let count = 0;
  let open = text.indexOf('"');
  while (open !== -1) {
    let close = text.indexOf('"', open + 1);
    // Skip quotes escaped by an odd number of backslashes.
    for (;;) {
      let backslashes = 0;
      for (let i = close - 1; text.charCodeAt(i) === 92; i--) backslashes++;
      if ((backslashes & 1) === 0) break;
      close = text.indexOf('"', close + 1);
    }
    let next = close + 1;
    for (
      let c = text.charCodeAt(next);
      c === 32 || c === 9 || c === 10 || c === 13;
      c = text.charCodeAt(++next)
    );
    if (text.charCodeAt(next) === 58) count++;
    open = text.indexOf('"', close + 1);
  }
  return count;
}

/** Count own member names in a parsed JSON value, iteratively (no recursion, so depth cannot overflow the stack). */
function countParsedMembers(root: object): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    const keys = Object.keys(value);
    count += keys.length;
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return count;
}

/**
 * Decode bytes into a JSON object, or `undefined` when the bytes are not UTF-8, not exactly one JSON
 * object, or repeat a member name anywhere.
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  const text = utf8Text(bytes);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  if (countTextMembers(text) !== countParsedMembers(value)) return undefined;
  return value as Record<string, unknown>;
}
