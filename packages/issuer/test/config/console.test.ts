/**
 * The `console` settings: on by default, with a 300 s re-authentication age, validated, and read from the
 * config file, from `GATEHOUSE_CONSOLE_ENABLED` / `GATEHOUSE_CONSOLE_REAUTHENTICATE_AFTER` and from
 * `--console-enabled[=true|false]` / `--console-reauthenticate-after` (the flag winning over the environment).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/cli/config.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { ConfigError } from '../../src/errors.js';
import { resolveConfig } from '../../src/issuer-config.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('console settings', () => {
  it('default: served, dangerous changes within 300 s of signing in', () => {
    expect(DEFAULTS.console.enabled).toBe(true);
    expect(DEFAULTS.console.reauthenticateAfter).toBe(300);
    expect(resolveConfig(base).console).toEqual({ enabled: true, reauthenticateAfter: 300 });
    expect(resolveConfig({ ...base, console: { enabled: false } }).console).toEqual({
      enabled: false,
      reauthenticateAfter: 300,
    });
  });

  it('a bad value or an unknown member throws a ConfigError naming it', () => {
    const attempt = (value: unknown) => () => resolveConfig({ ...base, console: value } as never);
    expect(attempt(false)).toThrow(/"console" must be an object/);
    expect(attempt({ enabled: 'no' })).toThrow(/"console.enabled" must be true or false/);
    expect(attempt({ enable: false })).toThrow(/"console.enable" is not a known option/);
    expect(attempt({ reauthenticateAfter: -1 })).toThrow(/"console.reauthenticateAfter"/);
    expect(attempt({ reauthenticateAfter: 1.5 })).toThrow(/"console.reauthenticateAfter"/);
  });

  it('is read from the config file, GATEHOUSE_CONSOLE_ENABLED and --console-enabled', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-console-config-'));
    try {
      writeFileSync(
        join(dir, 'gatehouse-issuer.json'),
        JSON.stringify({ ...base, console: { enabled: false } }),
      );
      expect(loadConfig({ env: {}, cwd: dir }).console).toMatchObject({ enabled: false });
      expect(loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'true' }, cwd: dir }).console).toMatchObject({
        enabled: true,
      });
      expect(loadConfig({ env: { GATEHOUSE_CONSOLE_REAUTHENTICATE_AFTER: '60' }, cwd: dir }).console).toEqual(
        { enabled: false, reauthenticateAfter: 60 },
      );
      const reauth = parseArgs(['start', '--console-reauthenticate-after', '120']);
      expect(loadConfig({ env: {}, ...reauth, cwd: tmpdir() }).console?.reauthenticateAfter).toBe(120);
      const { flags, flagNames } = parseArgs(['start', '--console-enabled=false']);
      expect(flags).toEqual({ 'console.enabled': false });
      expect(
        loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'true' }, flags, flagNames, cwd: tmpdir() }).console,
      ).toMatchObject({ enabled: false });
      expect(() => loadConfig({ env: { GATEHOUSE_CONSOLE_ENABLED: 'maybe' }, cwd: tmpdir() })).toThrow(
        ConfigError,
      );
      expect(() => parseArgs(['start', '--console-enabled=off'])).toThrow(/"--console-enabled"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
