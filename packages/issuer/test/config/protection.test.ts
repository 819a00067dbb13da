/**
 * The protection settings (`proxy`, `signIn`, `rateLimits`): defaults, validation with messages that
 * name the setting, unknown names refused with a suggestion, and the environment variables and flags
 * of the CLI.
 */
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadSettings } from '../../src/cli/config.js';
import { explainConfigError } from '../../src/cli/origins.js';
import { CLI_SETTINGS } from '../../src/cli/settings.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { ConfigError } from '../../src/errors.js';
import { resolveConfig } from '../../src/issuer-config.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('protection settings', () => {
  it('applies DEFAULTS', () => {
    const config = resolveConfig(base);
    expect(config.signIn).toEqual(DEFAULTS.signIn);
    expect(config.rateLimits).toEqual(DEFAULTS.rateLimits);
    expect(config.proxy.hops).toBe(0);
    expect(config.trustProxy).toBe(false);
    expect(resolveConfig({ ...base, proxy: { hops: 1 } }).trustProxy).toBe(true);
    expect(DEFAULTS.signIn.concurrentHashes).toBeGreaterThanOrEqual(1);
  });

  it.each([
    [
      { signIn: { maxFailuresPerAccountAndAddress: 0 } },
      '"signIn.maxFailuresPerAccountAndAddress" must be an integer between 1 and 10000',
    ],
    [{ signIn: { lockDuration: 'long' } }, '"signIn.lockDuration" must be an integer between 1 and 86400'],
    [{ signIn: { delay: 500, maxDelay: 100 } }, '"signIn.maxDelay" must be at least signIn.delay'],
    [{ rateLimits: { window: 7_200 } }, '"rateLimits.window" must be an integer between 1 and 3600'],
    [
      { rateLimits: { syncInterval: 5 } },
      '"rateLimits.syncInterval" must be an integer between 10 and 3600000',
    ],
    [{ rateLimits: [] }, '"rateLimits" must be an object'],
    [{ proxy: { addresses: '10.0.0.0/8' } }, '"proxy.addresses" must be a list'],
    [
      { signIn: { maxFailure: 3 } },
      '"signIn.maxFailure" is not a known option — did you mean "signIn.maxFailures"?',
    ],
    [{ trustProxy: true }, '"trustProxy" is replaced by "proxy.hops"'],
    [
      { signIn: { maxFailures: 10 } },
      '"signIn.maxFailures" is replaced by "signIn.maxFailuresPerAccountAndAddress" (flag --sign-in-max-failures-per-account-and-address, env GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS): wrong passwords now lock the client address out of the account, never the account itself',
    ],
  ])('refuses %j', (settings, message) => {
    expect(() => resolveConfig({ ...base, ...settings } as never)).toThrow(ConfigError);
    expect(() => resolveConfig({ ...base, ...settings } as never)).toThrow(message);
  });

  it('names each setting by an environment variable and a flag', () => {
    const entry = (setting: string) => CLI_SETTINGS.find((row) => row.setting === setting);
    expect(entry('signIn.maxFailuresPerAddress')?.env).toEqual([
      'GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ADDRESS',
    ]);
    expect(entry('proxy.hops')?.env).toEqual(['GATEHOUSE_PROXY_HOPS']);
    expect(entry('rateLimits.tokenPerClient')?.flag).toBe('--rate-limits-token-per-client');
    for (const group of ['signIn', 'rateLimits'] as const)
      for (const key of Object.keys(DEFAULTS[group])) expect(entry(`${group}.${key}`), key).toBeDefined();
  });

  it('reads them from the environment and the command line (flags win)', () => {
    const args = parseArgs([
      'start',
      '--sign-in-max-failures-per-account-and-address',
      '5',
      '--proxy-addresses',
      '10.0.0.0/8, 192.168.1.7',
    ]);
    const { config } = loadSettings({
      env: {
        GATEHOUSE_PROXY_HOPS: '2',
        GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '7',
        GATEHOUSE_SIGN_IN_LOCK_DURATION: '60',
        GATEHOUSE_RATE_LIMITS_TOKEN_PER_ADDRESS: '50',
      },
      flags: args.flags,
      flagNames: args.flagNames,
      cwd: '/tmp',
    });
    const resolved = resolveConfig(config);
    expect(resolved.proxy.hops).toBe(2);
    expect(resolved.proxy.addresses).toEqual(['10.0.0.0/8', '192.168.1.7']);
    expect(resolved.signIn.maxFailuresPerAccountAndAddress).toBe(5);
    expect(resolved.signIn.lockDuration).toBe(60);
    expect(resolved.rateLimits.tokenPerAddress).toBe(50);
  });

  it('names the variable that set a bad value, and refuses GATEHOUSE_TRUST_PROXY=true and GATEHOUSE_SIGN_IN_MAX_FAILURES naming the new setting', () => {
    for (const [env, message] of [
      [
        { GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '0' },
        '"GATEHOUSE_SIGN_IN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS" must be an integer between 1 and 10000',
      ],
      [
        { GATEHOUSE_SIGN_IN_MAX_FAILURES: '10' },
        '"GATEHOUSE_SIGN_IN_MAX_FAILURES" is replaced by "signIn.maxFailuresPerAccountAndAddress"',
      ],
      [{ GATEHOUSE_TRUST_PROXY: 'true' }, '"GATEHOUSE_TRUST_PROXY" is replaced by "proxy.hops"'],
    ] as const) {
      const { config, origins } = loadSettings({ env, cwd: '/tmp' });
      let error: unknown;
      try {
        resolveConfig(config);
      } catch (err) {
        error = explainConfigError(err as ConfigError, origins);
      }
      expect((error as ConfigError).message).toContain(message);
    }
  });

  it('F12: the former signIn.maxFailures (an account lock) is refused from code, a flag and the environment, naming its successor', () => {
    const successor = 'is replaced by "signIn.maxFailuresPerAccountAndAddress"';
    expect(() => resolveConfig({ ...base, signIn: { maxFailures: 5 } } as never)).toThrow(
      `"signIn.maxFailures" ${successor}`,
    );
    // Given as undefined, it is absent (as every other member is).
    expect(resolveConfig({ ...base, signIn: { maxFailures: undefined } } as never).signIn).toEqual(
      DEFAULTS.signIn,
    );
    for (const [sources, origin] of [
      [{ env: { GATEHOUSE_SIGN_IN_MAX_FAILURES: '5' } }, 'GATEHOUSE_SIGN_IN_MAX_FAILURES'],
      [
        (({ flags, flagNames }) => ({ flags, flagNames }))(
          parseArgs(['start', '--sign-in-max-failures', '5']),
        ),
        '--sign-in-max-failures',
      ],
    ] as const) {
      const { config, origins } = loadSettings({ env: {}, cwd: '/tmp', ...sources });
      let error: unknown;
      try {
        resolveConfig(config);
      } catch (err) {
        error = explainConfigError(err as ConfigError, origins);
      }
      expect((error as ConfigError).message).toContain(`"${origin}" ${successor}`);
    }
  });
});
