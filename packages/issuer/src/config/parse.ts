/**
 * One way to validate settings: zod schemas built from a few shared pieces (`integer`, `text`,
 * `oneOf`), whose first issue becomes a `ConfigError` naming the setting's full path in the words the
 * rest of the issuer uses ("must be an integer between 0 and 65535", "must be true or false", "is not
 * a known option"). The resolved groups take {@link DEFAULTS}-style defaults with {@link withDefaults}.
 *
 * @module
 */
import { z } from 'zod';
import { ConfigError } from '../errors.js';

/**
 * An integer setting within `[min, max]`; without `max`, any integer from `min` up ("must be an integer,
 * 0 or more").
 *
 * @example
 * ```ts
 * const PORT = integer(0, 65_535);
 * const GRACE = integer(0); // "must be an integer, 0 or more"
 * ```
 */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const error =
    max === Number.MAX_SAFE_INTEGER
      ? `must be an integer, ${min} or more`
      : `must be an integer between ${min} and ${max}`;
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

/**
 * A non-empty string setting.
 *
 * @example
 * ```ts
 * const HOST = text();
 * ```
 */
export function text() {
  const error = 'must be a non-empty string';
  return z.string({ error }).min(1, { error });
}

/**
 * One of a list of values.
 *
 * @example
 * ```ts
 * const LEVEL = oneOf(['info', 'debug']);
 * ```
 */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: `must be one of ${values.join(', ')}` });
}

/** The words of an issue: our own message when a piece gave one, else one made from the issue. */
function explain(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('must ')) return issue.message;
  if (issue.code === 'too_big') return `must be at most ${issue.maximum}`;
  if (issue.code === 'too_small') return `must be at least ${issue.minimum}`;
  if (issue.code === 'invalid_type') {
    if (issue.expected === 'boolean') return 'must be true or false';
    if (issue.expected === 'array') return 'must be a list';
    return `must be a ${issue.expected}`;
  }
  return 'is not valid';
}

/**
 * Validate one setting's value against `schema`; throw a `ConfigError` naming `option` (and the path
 * inside it) for the first issue.
 *
 * @example
 * ```ts
 * parseSetting(integer(0, 65_535), 70_000, 'port'); // ConfigError: "port" must be an integer between 0 and 65535
 * ```
 */
export function parseSetting<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys')
    throw new ConfigError(
      [option, ...issue.path.map(String), issue.keys[0]].join('.'),
      'is not a known option',
    );
  throw new ConfigError([option, ...issue.path.map(String)].join('.'), explain(issue));
}

/**
 * Validate a group of settings (absent → `{}`) against a strict object schema; a group that is not an
 * object is refused as such.
 *
 * @example
 * ```ts
 * const CONSOLE = z.strictObject({ enabled: z.boolean().optional() });
 * parseSettings(CONSOLE, { enabled: 'no' }, 'console'); // ConfigError: "console.enabled" must be true or false
 * ```
 */
export function parseSettings<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  if (value === undefined) return parseSetting(schema, {}, option);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(option, 'must be an object');
  return parseSetting(schema, value, option);
}

/** A default's type as a setting's: `DEFAULTS` holds literal numbers and flags (`10`, `true`). */
type Setting<T> = T extends number ? number : T extends boolean ? boolean : T;

/**
 * `defaults` with every member `given` sets (members given as `undefined` keep their default), frozen.
 *
 * @example
 * ```ts
 * withDefaults(DEFAULTS.keys, { gracePeriod: 3_600, algorithm: undefined }); // { algorithm: 'RS256', gracePeriod: 3600, … }
 * ```
 */
export function withDefaults<T extends object>(
  defaults: T,
  given: { readonly [K in keyof T]?: Setting<T[K]> | undefined },
): Readonly<{ [K in keyof T]: Setting<T[K]> }> {
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) merged[key] = value;
  return Object.freeze(merged) as { [K in keyof T]: Setting<T[K]> };
}
