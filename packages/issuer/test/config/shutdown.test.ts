/**
 * The `shutdown` settings: a drain delay of 0 and a drain timeout of 25 s by default, validated (the
 * delay must be shorter than the timeout), and read from the config file, from
 * `GATEHOUSE_SHUTDOWN_DRAIN_DELAY` / `GATEHOUSE_SHUTDOWN_DRAIN_TIMEOUT` and from
 * `--shutdown-drain-delay` / `--shutdown-drain-timeout` (the flag winning over the environment).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/cli/config.js';
import { runCli } from '../../src/cli/run.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { resolveShutdownConfig } from '../../src/config/shutdown.js';
import { resolveConfig } from '../../src/issuer-config.js';
import { cliIo } from '../helpers/cli-io.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('shutdown settings', () => {
  it('default: no drain delay, 25 s in all (under the 30 s Kubernetes gives before SIGKILL)', () => {
    expect(DEFAULTS.shutdown.drainDelay).toBe(0);
    expect(DEFAULTS.shutdown.drainTimeout).toBe(25);
    expect(resolveConfig(base).shutdown).toEqual({ drainDelay: 0, drainTimeout: 25 });
    expect(resolveShutdownConfig({ drainDelay: 5 })).toEqual({ drainDelay: 5, drainTimeout: 25 });
    expect(Object.isFrozen(resolveConfig(base).shutdown)).toBe(true);
  });

  it('a bad value, an unknown member or a delay not shorter than the timeout throws a ConfigError naming it', () => {
    const attempt = (value: unknown) => () => resolveConfig({ ...base, shutdown: value } as never);
    expect(attempt(5)).toThrow(/"shutdown" must be an object/);
    expect(attempt({ drainDelay: -1 })).toThrow(
      /"shutdown.drainDelay" must be an integer between 0 and 3600/,
    );
    expect(attempt({ drainDelay: 1.5 })).toThrow(/"shutdown.drainDelay"/);
    expect(attempt({ drainTimeout: 0 })).toThrow(
      /"shutdown.drainTimeout" must be an integer between 1 and 3600/,
    );
    expect(attempt({ drainTimout: 10 })).toThrow(/"shutdown.drainTimout" is not a known option/);
    expect(attempt({ drainDelay: 25 })).toThrow(
      '"shutdown.drainDelay" must be less than shutdown.drainTimeout (25)',
    );
    expect(attempt({ drainDelay: 10, drainTimeout: 10 })).toThrow(
      /must be less than shutdown.drainTimeout \(10\)/,
    );
    expect(resolveConfig({ ...base, shutdown: { drainDelay: 10, drainTimeout: 11 } }).shutdown).toEqual({
      drainDelay: 10,
      drainTimeout: 11,
    });
  });

  it('is read from the config file, the environment and the flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-shutdown-config-'));
    try {
      writeFileSync(
        join(dir, 'gatehouse-issuer.json'),
        JSON.stringify({ ...base, shutdown: { drainDelay: 3 } }),
      );
      expect(loadConfig({ env: {}, cwd: dir }).shutdown).toEqual({ drainDelay: 3 });
      const env = { GATEHOUSE_SHUTDOWN_DRAIN_DELAY: '7', GATEHOUSE_SHUTDOWN_DRAIN_TIMEOUT: '40' };
      expect(loadConfig({ env, cwd: dir }).shutdown).toEqual({ drainDelay: 7, drainTimeout: 40 });
      const { flags, flagNames } = parseArgs([
        'start',
        '--shutdown-drain-delay',
        '9',
        '--shutdown-drain-timeout=30',
      ]);
      expect(flags).toEqual({ 'shutdown.drainDelay': 9, 'shutdown.drainTimeout': 30 });
      expect(loadConfig({ env, flags, flagNames, cwd: dir }).shutdown).toEqual({
        drainDelay: 9,
        drainTimeout: 30,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI names the variable that set a delay too long for the timeout', async () => {
    const cli = cliIo({ GATEHOUSE_SHUTDOWN_DRAIN_DELAY: '30' });
    const { code } = await runCli(['start', '--database', ':memory:', '--port', '0'], cli.io as never);
    expect(code).toBe(2);
    expect(cli.stderr()).toBe(
      'Configuration error: "GATEHOUSE_SHUTDOWN_DRAIN_DELAY" must be less than shutdown.drainTimeout (25)\n',
    );
  });
});
