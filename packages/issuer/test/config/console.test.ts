/**
 * The `console` setting: on by default, validated, and read from the config file, from
 * `GATEHOUSE_CONSOLE_ENABLED` and from `--console-enabled[=true|false]` (the flag winning over the environment).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/cli/config.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('console settings', () => {
  it('default: served', () => {
    expect(DEFAULTS.console.enabled).toBe(true);
    expect(resolveConfig(base).console).toEqual({ enabled: true });
    expect(resolveConfig({ ...base, console: { enabled: false } }).console).toEqual({ enabled: false });
  });

  it('a bad value or an unknown member throws a ConfigError naming it', () => {
    const attempt = (value: unknown) => () => resolveConfig({ ...base, console: value } as never);
    expect(attempt(false)).toThrow(/"console" must be an object/);
    expect(attempt({ enabled: 'no' })).toThrow(/"console.enabled" must be true or false/);
    expect(attempt({ enable: false })).toThrow(/"console.enable" is not a known option/);
  });

  it('is read from the config file, GATEHOUSE_CONSOLE_ENABLED and --console-enabled', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-console-config-'));
    try {
      writeFileSync(
        join(dir, 'gatehouse-issuer.json'),
        JSON.stringify({ ...base, console: { enabled: false } }),
      );
      expect(loadConfig({ env: {}, cwd: dir }).console).toEqual({ enabled: false });
      expect(loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'true' }, cwd: dir }).console).toEqual({
        enabled: true,
      });
      const { flags, flagNames } = parseArgs(['start', '--console-enabled=false']);
      expect(flags).toEqual({ 'console.enabled': false });
      expect(
        loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'true' }, flags, flagNames, cwd: tmpdir() }).console,
      ).toEqual({ enabled: false });
      expect(() => loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'maybe' }, cwd: tmpdir() })).toThrow(
        ConfigError,
      );
      expect(() => parseArgs(['start', '--console-enabled=off'])).toThrow(/"--console-enabled"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
