/**
 * Every setting of the config file, and how else to set it: its `start` flag and its environment
 * variables. One table drives the flag parser (`args.ts`), the environment reader (`config.ts`), the
 * `--help` text and the error messages (`origins.ts`); a test checks it against the option tree and
 * DEFAULTS so no setting is missed. Secrets (`admin.clientSecret`, `cookieKeys`) and the custom-claims
 * values have an environment variable but no flag: a flag is visible to every user of the machine in
 * the process list.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.js';
import { ConfigError } from '../errors.js';

/**
 * How a value is written on the command line or in the environment: `list` is comma-separated, `json`
 * a JSON object, `boolean` `true`/`false` (a boolean flag alone means `true`).
 *
 * @example
 * ```ts
 * const kind: SettingKind = 'integer';
 * ```
 */
export type SettingKind = 'string' | 'integer' | 'boolean' | 'list' | 'json';

/**
 * One setting as the CLI reaches it.
 *
 * @example
 * ```ts
 * const port: CliSetting = { setting: 'port', flag: '--port', env: ['GATEHOUSE_PORT'], kind: 'integer', value: '<n>', help: 'port to listen on' };
 * ```
 */
export interface CliSetting {
  /** Dotted path of the setting (`keys.gracePeriod`). */
  readonly setting: string;
  /** The `start` flag; none for secrets (see the module description). */
  readonly flag?: string | undefined;
  /** Other flags setting the same (`--database-url`). */
  readonly aliases?: readonly string[] | undefined;
  /** Environment variables, the one that wins last. */
  readonly env: readonly string[];
  readonly kind: SettingKind;
  /** Placeholder of the value in `--help` (`<n>`, `<url>`); empty for a boolean. */
  readonly value: string;
  readonly help: string;
  /** The default as `--help` states it, when it is not a DEFAULTS value. */
  readonly fallback?: string | undefined;
}

/** Flag prefix of a group, where it is not the group's name. */
const PREFIX: Readonly<Record<string, string>> = {
  keys: 'key',
  passwords: 'password',
  subjectTokens: 'subject-token',
  customJwtClaims: 'custom-claims',
  webhooks: 'webhook',
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** `keys.gracePeriod` → `--key-grace-period`. */
const flagOf = (setting: string) => {
  const [group, name] = setting.split('.') as [string, string | undefined];
  return name === undefined ? `--${kebab(group)}` : `--${PREFIX[group] ?? kebab(group)}-${kebab(name)}`;
};

/** `--key-grace-period` → `GATEHOUSE_KEY_GRACE_PERIOD`. */
const envOf = (flag: string) => `GATEHOUSE_${flag.slice(2).replace(/-/g, '_').toUpperCase()}`;

type Row = readonly [
  setting: string,
  kind: SettingKind,
  value: string,
  help: string,
  extra?: Partial<CliSetting>,
];

/** Secrets: an environment variable only. */
const SECRET: Partial<CliSetting> = { flag: undefined };

// Flag and variable follow from the setting's path (flagOf, envOf) unless `extra` says otherwise.
const ROWS: readonly Row[] = [
  [
    'baseUrl',
    'string',
    '<url>',
    'public URL; the issuer is {baseUrl}/oidc',
    { fallback: 'http://localhost:{port}' },
  ],
  ['port', 'integer', '<n>', 'port to listen on'],
  ['host', 'string', '<host>', 'interface to bind'],
  ['dataDir', 'string', '<dir>', 'directory of the SQLite file'],
  // DATABASE_URL (the usual name on hosting platforms) first, so GATEHOUSE_DATABASE wins when both are set.
  [
    'database',
    'string',
    '<db>',
    'SQLite file, :memory:, or a postgres:// URL (several instances on one database)',
    {
      aliases: ['--database-url'],
      env: ['DATABASE_URL', 'GATEHOUSE_DATABASE'],
      fallback: '{dataDir}/issuer.sqlite',
    },
  ],
  ['postgres.poolSize', 'integer', '<n>', 'pooled PostgreSQL connections per process'],
  ['postgres.connectionTimeout', 'integer', '<ms>', 'milliseconds a query waits for a connection'],
  ['postgres.idleTimeout', 'integer', '<ms>', 'milliseconds before an idle pooled connection closes'],
  ['trustProxy', 'boolean', '', 'replaced by --proxy-hops / --proxy-addresses; only false is accepted'],
  [
    'proxy.hops',
    'integer',
    '<n>',
    'trusted proxies in front; the client address is read from the right end of X-Forwarded-For',
  ],
  [
    'proxy.addresses',
    'list',
    '<list>',
    'trusted proxy addresses or CIDR ranges, comma-separated',
    { fallback: 'none' },
  ],
  [
    'accessTokenFormat',
    'string',
    '<format>',
    'jwt (validated locally by APIs) or opaque (introspected, revocable at once) for API resources',
  ],
  [
    'signIn.maxFailuresPerAccountAndAddress',
    'integer',
    '<n>',
    'failed sign-ins of an account from one client address before that address is locked out of it',
  ],
  [
    'signIn.maxFailures',
    'integer',
    '<n>',
    'replaced by --sign-in-max-failures-per-account-and-address; refused',
    { fallback: 'none' },
  ],
  [
    'signIn.maxFailuresPerAddress',
    'integer',
    '<n>',
    'failed sign-ins from a client address before it is locked',
  ],
  ['signIn.failureWindow', 'integer', '<s>', 'seconds over which sign-in failures are counted'],
  ['signIn.lockDuration', 'integer', '<s>', 'seconds a sign-in lock lasts'],
  ['signIn.delayAfter', 'integer', '<n>', 'failures of an account answered at full speed'],
  ['signIn.delayAfterPerAddress', 'integer', '<n>', 'failures from an address answered at full speed'],
  ['signIn.delay', 'integer', '<ms>', 'first sign-in delay (doubles with each further failure)'],
  ['signIn.maxDelay', 'integer', '<ms>', 'longest sign-in delay'],
  [
    'signIn.concurrentHashes',
    'integer',
    '<n>',
    'sign-in password hashes at once (low-priority threads)',
    { fallback: 'half the CPUs, at least 1' },
  ],
  ['signIn.queuedHashes', 'integer', '<n>', 'sign-ins waiting for a hash; more get 503 at once'],
  ['rateLimits.window', 'integer', '<s>', 'seconds of each rate-limit window'],
  ['rateLimits.managementPerClient', 'integer', '<n>', 'Management API requests per client per window'],
  ['rateLimits.tokenPerClient', 'integer', '<n>', 'token endpoint requests per client id per window'],
  ['rateLimits.tokenPerAddress', 'integer', '<n>', 'token endpoint requests per client address per window'],
  ['rateLimits.syncInterval', 'integer', '<ms>', 'ms between flushes of rate-limit counts to the database'],
  ['log.level', 'string', '<level>', 'fatal|error|warn|info|debug|trace|silent'],
  ['keys.algorithm', 'string', '<alg>', 'RS256, PS256, ES256 or EdDSA for new signing keys'],
  ['keys.rsaModulusLength', 'integer', '<bits>', 'RSA key size (2048–4096)'],
  ['keys.gracePeriod', 'integer', '<s>', 'seconds a rotated-out key stays in the JWKS'],
  ['keys.reloadInterval', 'integer', '<s>', 'seconds between checks for keys rotated elsewhere (0: off)'],
  ['ttl.accessToken', 'integer', '<s>', 'default access-token lifetime'],
  ['ttl.authorizationCode', 'integer', '<s>', 'authorization-code lifetime'],
  ['ttl.idToken', 'integer', '<s>', 'ID-token lifetime'],
  ['ttl.refreshToken', 'integer', '<s>', 'refresh-token lifetime'],
  ['ttl.session', 'integer', '<s>', 'sign-in session lifetime'],
  ['ttl.grant', 'integer', '<s>', 'grant lifetime'],
  ['ttl.interaction', 'integer', '<s>', 'unfinished sign-in lifetime'],
  ['http.maxBodyBytes', 'integer', '<bytes>', 'largest Management API body'],
  ['http.maxJsonDepth', 'integer', '<n>', 'deepest JSON nesting of a Management API body'],
  ['passwords.scryptCost', 'integer', '<n>', 'scrypt cost N of password hashes'],
  ['passwords.minLength', 'integer', '<n>', 'shortest password the Management API accepts'],
  [
    'admin.clientId',
    'string',
    '<id>',
    'fixed administrator client id (with the secret)',
    { fallback: 'generated' },
  ],
  [
    'admin.clientSecret',
    'string',
    '',
    'fixed administrator secret, 32+ characters',
    { ...SECRET, fallback: 'generated' },
  ],
  [
    'cookieKeys',
    'list',
    '',
    'comma-separated keys signing the sign-in cookies, newest first',
    {
      ...SECRET,
      fallback: 'generated and stored',
    },
  ],
  ['subjectTokens.ttl', 'integer', '<s>', 'subject-token lifetime (10–3600)'],
  [
    'tokenExchange.maxFailures',
    'integer',
    '<n>',
    'unknown-token redemptions per client and address before 429',
  ],
  ['tokenExchange.failureWindow', 'integer', '<s>', 'seconds of that window'],
  ['dpop.requireNonce', 'boolean', '', 'every DPoP proof at the token endpoint must carry a server nonce'],
  ['console.enabled', 'boolean', '', 'serve the admin console at {baseUrl}/console'],
  [
    'console.reauthenticateAfter',
    'integer',
    '<s>',
    'seconds after signing in during which console users may make dangerous changes',
  ],
  [
    'webhooks.allowedPrivateTargets',
    'list',
    '<list>',
    'hosts, addresses or CIDR ranges webhooks may target although loopback or private, comma-separated',
    { fallback: 'none' },
  ],
  ['webhooks.disableAfter', 'integer', '<s>', 'seconds an endpoint may keep failing before it is disabled'],
  ['webhooks.secretOverlap', 'integer', '<s>', 'seconds a rotated-out webhook secret stays valid'],
  ['webhooks.concurrency', 'integer', '<n>', 'deliveries to one webhook endpoint in flight at once'],
  [
    'shutdown.drainDelay',
    'integer',
    '<s>',
    'seconds to keep serving after /health/ready turned 503 on SIGTERM, before refusing connections',
  ],
  ['shutdown.drainTimeout', 'integer', '<s>', 'seconds a graceful shutdown may take in all; then it is cut'],
  ['telemetry.metrics', 'boolean', '', 'record OpenTelemetry metrics (false: no hook at all)'],
  [
    'telemetry.traces',
    'boolean',
    '',
    'register the trace SDK and export spans when an OTLP endpoint is configured',
  ],
  [
    'telemetry.otlpEndpoint',
    'string',
    '<url>',
    'OTLP/HTTP collector metrics and traces are sent to ({url}/v1/metrics, /v1/traces)',
    { fallback: 'OTEL_EXPORTER_OTLP_ENDPOINT, else none' },
  ],
  ['telemetry.exportInterval', 'integer', '<s>', 'seconds between two OTLP metric exports'],
  [
    'telemetry.serviceName',
    'string',
    '<name>',
    'service.name of the metrics',
    { fallback: 'OTEL_SERVICE_NAME, else gatehouse-issuer' },
  ],
  [
    'telemetry.prometheus',
    'string',
    '<mode>',
    'Prometheus /metrics endpoint: off, own-port (its own server) or issuer-port (needs the token)',
  ],
  ['telemetry.prometheusPort', 'integer', '<n>', 'port of the own /metrics server'],
  ['telemetry.prometheusHost', 'string', '<host>', 'interface of the own /metrics server'],
  [
    'telemetry.prometheusToken',
    'string',
    '',
    'bearer token /metrics requires (at least 32 characters)',
    { ...SECRET, fallback: 'none' },
  ],
  [
    'customJwtClaims.module',
    'string',
    '<file>',
    'ES module exporting getCustomJwtClaims',
    { fallback: 'none' },
  ],
  [
    'customJwtClaims.environmentVariables',
    'json',
    '',
    'JSON object of values handed to the function (may hold secrets)',
    {
      ...SECRET,
      fallback: '{}',
    },
  ],
  ['customJwtClaims.timeout', 'integer', '<ms>', 'deadline of one call'],
  ['customJwtClaims.memoryLimit', 'integer', '<MiB>', 'heap limit of a claims worker'],
  ['customJwtClaims.maxResultBytes', 'integer', '<bytes>', 'largest result of the function'],
  ['customJwtClaims.onError', 'string', '<mode>', 'deny (no token) or issue-without-claims'],
  ['customJwtClaims.workers', 'integer', '<n>', 'worker threads running the function'],
];

/**
 * The table, in `--help` order.
 *
 * @example
 * ```ts
 * CLI_SETTINGS.find((entry) => entry.setting === 'subjectTokens.ttl')?.flag; // '--subject-token-ttl'
 * ```
 */
export const CLI_SETTINGS: readonly CliSetting[] = Object.freeze(
  ROWS.map(([setting, kind, value, help, extra = {}]) => {
    const flag = flagOf(setting);
    return Object.freeze({ setting, flag, env: [envOf(flag)], kind, value, help, ...extra });
  }),
);

/**
 * The DEFAULTS value of a dotted path, if DEFAULTS has one.
 *
 * @example
 * ```ts
 * defaultOf('keys.gracePeriod'); // 86400
 * ```
 */
export function defaultOf(path: string): unknown {
  let node: unknown = DEFAULTS;
  for (const name of path.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, name)) return undefined;
    node = (node as Record<string, unknown>)[name];
  }
  return node;
}

/**
 * The default of a setting as `--help` and docs state it.
 *
 * @example
 * ```ts
 * defaultText(CLI_SETTINGS.find((entry) => entry.setting === 'port')!); // '3001'
 * ```
 */
export function defaultText(entry: CliSetting): string {
  return entry.fallback ?? String(defaultOf(entry.setting));
}

const FLAG_WIDTH = Math.max(...CLI_SETTINGS.map((entry) => `${entry.flag ?? ''} ${entry.value}`.length));

/**
 * The settings part of `--help`: per setting, its flag, what it does, its environment variables and
 * its default; then the settings that have only an environment variable.
 *
 * @example
 * ```ts
 * process.stderr.write(settingsHelp());
 * ```
 */
export function settingsHelp(): string {
  const line = (entry: CliSetting) =>
    `  ${`${entry.flag ?? ''} ${entry.value}`.padEnd(FLAG_WIDTH)}  ${entry.help}\n` +
    `  ${''.padEnd(FLAG_WIDTH)}  (${entry.setting}; ${entry.aliases?.length ? `also ${entry.aliases.join(', ')}; ` : ''}env ${entry.env.join(' or ')}; default ${defaultText(entry)})`;
  const flagged = CLI_SETTINGS.filter((entry) => entry.flag !== undefined);
  const envOnly = CLI_SETTINGS.filter((entry) => entry.flag === undefined);
  return [
    'Settings (a flag wins over the environment, which wins over the config file):',
    ...flagged.map(line),
    '',
    'Environment only (secrets stay out of the process list):',
    ...envOnly.map(
      (entry) =>
        `  ${entry.env.join(' or ')}  ${entry.help} (${entry.setting}; default ${defaultText(entry)})`,
    ),
  ].join('\n');
}

/**
 * A flag's or environment variable's text as a value of `kind`; a `ConfigError` naming `source` when
 * it is not one.
 *
 * @example
 * ```ts
 * parseValue('GATEHOUSE_PORT', 'integer', '3002'); // 3002
 * parseValue('GATEHOUSE_COOKIE_KEYS', 'list', 'k2,k1'); // ['k2', 'k1']
 * ```
 */
export function parseValue(source: string, kind: SettingKind, raw: string): unknown {
  switch (kind) {
    case 'integer':
      if (!/^\d+$/.test(raw)) throw new ConfigError(source, 'must be an integer');
      return Number(raw);
    case 'boolean':
      if (!/^(?:true|false|1|0)$/i.test(raw)) throw new ConfigError(source, 'must be true or false');
      return /^(?:true|1)$/i.test(raw);
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'json': {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        throw new ConfigError(source, 'must be a JSON object');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw new ConfigError(source, 'must be a JSON object');
      return value;
    }
    default:
      return raw;
  }
}
