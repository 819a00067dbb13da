/**
 * Every setting is reachable the way operators expect: the table of `src/cli/settings.ts` covers the
 * option tree exactly; `gatehouse-issuer start --help` lists each setting's flag, environment
 * variables and DEFAULTS value; every DEFAULTS value is either a setting or named here as fixed; each
 * flag and each variable really sets its setting; and an issuer started with the new flags runs with
 * them.
 */
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadSettings } from '../../src/cli/config.js';
import { runCli } from '../../src/cli/run.js';
import { CLI_SETTINGS, type CliSetting, defaultOf } from '../../src/cli/settings.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { EMBEDDING_ONLY, OPTION_TREE, type OptionTree } from '../../src/config/keys.js';

/** DEFAULTS values that are not settings: fixed limits and names, each for a reason given in DEFAULTS. */
const FIXED = [
  'databaseFile',
  'subjectTokens.maxContextBytes',
  'subjectTokens.retention',
  'postgresDriver.maxPreparedStatements',
  'postgresDriver.maxReconnectDelay',
  'tokenRequestCache.maxEntries',
  'tokenRequestCache.maxAge',
  'tokenRequestCache.otherProcessCheckInterval',
  'copy.maxValuesPerInsert',
  'maintenance.purgeInterval',
  'interactions.maxFormBytes',
  'cli.tokenTimeout',
  'startup.retryAfter',
  'dpop.signingAlgorithms',
  'dpop.nonceSecretSetting',
  'management.pageSize',
  'management.maxPageSize',
  'management.maxParamLength',
  'management.maxCustomDataBytes',
  'responses.discoveryMaxAge',
  'responses.jwksMaxAge',
  'responses.maxEcho',
  'responses.maxErrorDescription',
  'console.clientId',
  'console.assetMaxAge',
  'rateLimitTracking.maxKeys',
  'rateLimitTracking.keysPerStatement',
  'impersonation.tokenTtl',
  'impersonation.minTokenTtl',
  'impersonation.maxTokenTtl',
  'totp.period',
  'totp.digits',
  'totp.algorithm',
  'totp.window',
  'totp.secretBytes',
  'totp.stepLifetime',
  'totp.maxFailures',
  'totp.failureWindow',
  'webhooks.timeout',
  'webhooks.maxAttempts',
  'webhooks.retryDelay',
  'webhooks.maxRetryDelay',
  'webhooks.pollInterval',
  'webhooks.batchSize',
  'webhooks.claimMargin',
  'webhooks.tolerance',
  'webhooks.retention',
  'webhooks.maxErrorLength',
  'webhooks.secretKeySetting',
  'webhooks.maxConcurrent',
  'webhooks.maxSecretOverlap',
  'webhooks.maxResponseHeaderBytes',
  'shutdown.closeTimeout',
  'telemetry.maxClientIds',
  'telemetry.maxReasons',
  'health.databaseTimeout',
  'health.cacheFor',
];

function leaves(tree: OptionTree | Readonly<Record<string, unknown>>, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([name, node]) =>
    node !== null && typeof node === 'object' && !Array.isArray(node)
      ? leaves(node as OptionTree, `${prefix}${name}.`)
      : [`${prefix}${name}`],
  );
}

const help = async (argv: string[]) => {
  const err: string[] = [];
  const { code } = await runCli(argv, {
    stdout: { write: () => undefined },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    cwd: process.cwd(),
  });
  expect(code).toBe(0);
  return err.join('');
};

/** A value of the entry's kind, as text and as the setting holds it. */
function sample(entry: CliSetting): [text: string, value: unknown] {
  switch (entry.kind) {
    case 'integer':
      return ['7', 7];
    case 'boolean':
      return ['true', true];
    case 'list':
      return ['k2-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,k1', ['k2-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'k1']];
    case 'json':
      return ['{"TENANT":"acme"}', { TENANT: 'acme' }];
    default:
      return ['x-value', 'x-value'];
  }
}

const at = (settings: unknown, path: string) =>
  path.split('.').reduce<unknown>((node, name) => (node as Record<string, unknown>)?.[name], settings);

describe('settings of the CLI', () => {
  const settings = leaves(OPTION_TREE).filter((path) => !EMBEDDING_ONLY.includes(path));

  it('one entry per setting of the config file, and no other', () => {
    expect(CLI_SETTINGS.map((entry) => entry.setting).sort()).toEqual([...settings].sort());
    const flags = CLI_SETTINGS.flatMap((entry) => [entry.flag, ...(entry.aliases ?? [])]).filter(Boolean);
    expect(new Set(flags).size).toBe(flags.length);
    const variables = CLI_SETTINGS.flatMap((entry) => entry.env);
    expect(new Set(variables).size).toBe(variables.length);
  });

  it('start --help lists every setting: its flag, its variables and its DEFAULTS value', async () => {
    const text = await help(['start', '--help']);
    expect(text).toBe(await help(['--help']));
    for (const entry of CLI_SETTINGS) {
      const stated = entry.fallback ?? defaultOf(entry.setting);
      expect(stated, entry.setting).toBeDefined();
      const line = text
        .split('\n')
        .find((row) => row.includes(`(${entry.setting};`) || row.includes(`(${entry.setting}; default`));
      expect(line, entry.setting).toBeDefined();
      expect(line).toContain(`default ${String(stated)})`);
      for (const variable of entry.env) expect(line).toContain(variable);
      if (entry.flag !== undefined) {
        const flagLine = text.split('\n')[text.split('\n').indexOf(line!) - 1]!;
        expect(flagLine.trimStart().startsWith(`${entry.flag} `) || flagLine.trim() === entry.flag).toBe(
          true,
        );
      }
    }
    // The subject-token lifetime, by name.
    expect(text).toMatch(/--subject-token-ttl <s> +subject-token lifetime/);
    expect(text).toContain(`GATEHOUSE_SUBJECT_TOKEN_TTL; default ${DEFAULTS.subjectTokens.ttl})`);
  });

  it('every DEFAULTS value is a setting or a fixed limit named here', () => {
    const defaults = leaves(DEFAULTS as unknown as Record<string, unknown>);
    for (const path of defaults)
      expect(settings.includes(path) || FIXED.includes(path), `${path}: a setting or fixed?`).toBe(true);
    for (const path of FIXED) {
      expect(defaults, path).toContain(path);
      expect(settings, path).not.toContain(path);
    }
  });

  it.each(CLI_SETTINGS.map((entry) => [entry.setting, entry] as const))(
    '%s: its flag and each of its variables set it',
    (setting, entry) => {
      const [text, value] = sample(entry);
      for (const variable of entry.env) {
        const { config, origins } = loadSettings({ env: { [variable]: text }, cwd: '/srv' });
        const expected =
          setting === 'customJwtClaims.module' || setting === 'dataDir' ? `/srv/${text}` : value;
        expect(at(config, setting), variable).toEqual(setting === 'database' ? '/srv/x-value' : expected);
        expect(origins.get(setting)).toEqual({ kind: 'env', name: variable });
      }
      for (const flag of [entry.flag, ...(entry.aliases ?? [])]) {
        if (flag === undefined) continue;
        const args = parseArgs(entry.kind === 'boolean' ? ['start', flag] : ['start', flag, text]);
        expect(args.flags[setting], flag).toEqual(value);
        expect(args.flagNames[setting]).toBe(flag);
      }
    },
  );

  it('boolean flags take no value, or =true / =false; a bad value names the flag', async () => {
    expect(parseArgs(['start', '--trust-proxy=false']).flags.trustProxy).toBe(false);
    expect(parseArgs(['start', '--dpop-require-nonce', 'migrate']).command).toBe('start');
    const said = async (argv: string[], env: Record<string, string> = {}) => {
      const err: string[] = [];
      const { code } = await runCli(argv, {
        stdout: { write: () => undefined },
        stderr: { write: (text: string) => err.push(text) },
        env,
        cwd: process.cwd(),
      });
      expect(code).toBe(2);
      return err.join('').trim();
    };
    expect(await said(['start', '--trust-proxy=yes'])).toBe(
      'Configuration error: "--trust-proxy" takes no value (or =true / =false)',
    );
    expect(await said(['start', '--subject-token-ttl', 'ten'])).toBe(
      'Configuration error: "--subject-token-ttl" must be an integer',
    );
    expect(await said(['migrate', '--database', ':memory:', '--subject-token-ttl', '7200'])).toBe(
      'Configuration error: "--subject-token-ttl" must be an integer between 10 and 3600',
    );
    expect(await said(['migrate'], { GATEHOUSE_CUSTOM_CLAIMS_ENVIRONMENT_VARIABLES: '[1]' })).toBe(
      'Configuration error: "GATEHOUSE_CUSTOM_CLAIMS_ENVIRONMENT_VARIABLES" must be a JSON object',
    );
  });

  it('an issuer started with the new flags and variables runs with them', async () => {
    const { code, issuer } = await runCli(
      [
        'start',
        '--port',
        '0',
        '--database',
        ':memory:',
        '--subject-token-ttl',
        '120',
        '--ttl-access-token',
        '900',
        '--key-grace-period',
        '5',
        '--token-exchange-max-failures',
        '3',
        '--password-min-length',
        '12',
        '--proxy-hops',
        '1',
        '--sign-in-max-failures-per-account-and-address',
        '4',
      ],
      {
        stdout: { write: () => undefined },
        stderr: { write: () => undefined },
        env: { GATEHOUSE_COOKIE_KEYS: `${'a'.repeat(32)},${'b'.repeat(32)}`, GATEHOUSE_LOG_LEVEL: 'silent' },
        cwd: process.cwd(),
      },
    );
    expect(code).toBe(0);
    try {
      expect(issuer!.config.subjectTokens.ttl).toBe(120);
      expect(issuer!.config.ttl.accessToken).toBe(900);
      expect(issuer!.config.keys.gracePeriod).toBe(5);
      expect(issuer!.config.tokenExchange.maxFailures).toBe(3);
      expect(issuer!.config.passwords.minLength).toBe(12);
      expect(issuer!.config.proxy.hops).toBe(1);
      expect(issuer!.config.trustProxy).toBe(true);
      expect(issuer!.config.signIn.maxFailuresPerAccountAndAddress).toBe(4);
      expect(issuer!.config.cookieKeys).toEqual(['a'.repeat(32), 'b'.repeat(32)]);
    } finally {
      await issuer!.close();
    }
  });
});
