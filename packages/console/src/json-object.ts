/** A JSON object typed by a person (custom data), read or refused with a sentence (no DOM: unit-tested in Node). */

/**
 * The text as a JSON object (blank text is `{}`), or a sentence saying why it is not one.
 *
 * @example
 * ```ts
 * parseJsonObject('{"plan": "pro"}'); // { value: { plan: 'pro' } }
 * parseJsonObject('["pro"]'); // { error: 'Custom data must be a JSON object, e.g. {"plan": "pro"}.' }
 * ```
 */
export function parseJsonObject(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch {
    return { error: 'Custom data is not valid JSON.' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { error: 'Custom data must be a JSON object, e.g. {"plan": "pro"}.' };
  return { value: value as Record<string, unknown> };
}
