/**
 * One way to validate a group of settings: a zod strict object, whose first issue becomes a
 * `ConfigError` naming the setting's full path in the words the rest of the issuer uses ("must be
 * true or false", "must be at most 10", "is not a known option").
 *
 * @module
 */
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

/**
 * Validate `value` (absent → `{}`) against `schema`; throw a `ConfigError` for its first issue,
 * named `option.member`.
 *
 * @example
 * ```ts
 * const CONSOLE = z.strictObject({ enabled: z.boolean().optional() });
 * parseSettings(CONSOLE, { enabled: 'no' }, 'console'); // ConfigError: "console.enabled" must be true or false
 * ```
 */
export function parseSettings<T>(schema: z.ZodType<T>, value: unknown, option: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [option, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys')
    throw new ConfigError(`${option}.${issue.keys[0]}`, 'is not a known option');
  if (issue.path.length === 0) throw new ConfigError(option, 'must be an object');
  if (issue.code === 'too_big') throw new ConfigError(path, `must be at most ${issue.maximum}`);
  if (issue.code === 'too_small') throw new ConfigError(path, `must be at least ${issue.minimum}`);
  if (issue.code === 'invalid_type') {
    const expected =
      issue.expected === 'boolean'
        ? 'true or false'
        : issue.expected === 'array'
          ? 'a list'
          : `a ${issue.expected}`;
    throw new ConfigError(path, `must be ${expected}`);
  }
  throw new ConfigError(path, 'must be an integer');
}
