/**
 * Command-line parsing: a command (one or two words), positional arguments and `--flag value` options.
 *
 * @module
 */
import { ConfigError } from '../errors.js';
import { didYouMean } from '../internal/suggest.js';

/**
 * Flags and the setting each sets.
 *
 * @example
 * ```ts
 * FLAGS['--port']; // { setting: 'port', kind: 'integer' }
 * ```
 */
export const FLAGS: Readonly<
  Record<string, { readonly setting: string; readonly kind: 'string' | 'integer' | 'boolean' }>
> = Object.freeze({
  '--base-url': { setting: 'baseUrl', kind: 'string' },
  '--port': { setting: 'port', kind: 'integer' },
  '--host': { setting: 'host', kind: 'string' },
  '--data-dir': { setting: 'dataDir', kind: 'string' },
  '--database': { setting: 'database', kind: 'string' },
  '--database-url': { setting: 'database', kind: 'string' },
  '--log-level': { setting: 'log.level', kind: 'string' },
  '--console': { setting: 'console.enabled', kind: 'boolean' },
});

/**
 * Options of the `token` command (not settings), by flag, and the name each is stored under.
 *
 * @example
 * ```ts
 * TOKEN_OPTIONS['--pat']; // 'pat'
 * ```
 */
export const TOKEN_OPTIONS: Readonly<Record<string, string>> = Object.freeze({
  '--pat': 'pat',
  '--resource': 'resource',
  '--scope': 'scope',
  '--client-id': 'clientId',
});

/**
 * The parsed command line.
 *
 * @example
 * ```ts
 * const { command, flags }: ParsedArgs = parseArgs(['start', '--port', '3002']); // 'start', { port: 3002 }
 * ```
 */
export interface ParsedArgs {
  readonly command: string | undefined;
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, unknown>>;
  /** The flag that set each setting of `flags` (`port` → `--port`). */
  readonly flagNames: Readonly<Record<string, string>>;
  /** Command options (`--pat`, `--resource` …), by name. */
  readonly options: Readonly<Record<string, string>>;
  readonly config: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
}

/** Every option name the CLI knows, for "did you mean …?". */
const ALL_OPTIONS = [...Object.keys(FLAGS), ...Object.keys(TOKEN_OPTIONS), '--config', '--help', '--version'];

/**
 * Parse `argv` (without the node and script entries). An unknown or incomplete option throws a
 * `ConfigError` naming the flag.
 *
 * @example
 * ```ts
 * parseArgs(['start', '--port', '3002']).flags; // { port: 3002 }
 * parseArgs(['start', '--prot', '3002']); // ConfigError: "--prot" is not a known option — did you mean "--port"? (see --help)
 * ```
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const words: string[] = [];
  const flags: Record<string, unknown> = {};
  const flagNames: Record<string, string> = {};
  const options: Record<string, string> = {};
  let config: string | undefined;
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') help = true;
    else if (arg === '-v' || arg === '--version') version = true;
    else if (arg.startsWith('-')) {
      const [name, inline] = arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
      const value = inline ?? argv[++i];
      if (value === undefined) throw new ConfigError(name, 'needs a value');
      if (name === '-c' || name === '--config') config = value;
      else if (TOKEN_OPTIONS[name] !== undefined) options[TOKEN_OPTIONS[name]] = value;
      else {
        const flag = FLAGS[name];
        if (flag === undefined)
          throw new ConfigError(name, `is not a known option${didYouMean(name, ALL_OPTIONS)} (see --help)`);
        if (flag.kind === 'integer' && !/^\d+$/.test(value))
          throw new ConfigError(name, 'must be an integer');
        if (flag.kind === 'boolean' && value !== 'true' && value !== 'false')
          throw new ConfigError(name, 'must be true or false');
        flags[flag.setting] =
          flag.kind === 'integer' ? Number(value) : flag.kind === 'boolean' ? value === 'true' : value;
        flagNames[flag.setting] = name;
      }
    } else words.push(arg);
  }
  const grouped = words[0] === 'keys' || words[0] === 'admin';
  const command = grouped && words[1] !== undefined ? `${words[0]} ${words[1]}` : words[0];
  const positionals = words.slice(command?.includes(' ') ? 2 : 1);
  return { command, positionals, flags, flagNames, options, config, help, version };
}

/**
 * `--help` text.
 *
 * @example
 * ```ts
 * process.stderr.write(`${USAGE}\n`);
 * ```
 */
export const USAGE = `Usage: gatehouse-issuer <command> [options]

Commands:
  start              Start the issuer. On first start it creates the database, the signing key and an
                     administrator application, and prints the administrator's client id and secret once.
  migrate            Apply database migrations and exit.
  seed <file.json>   Load resources, roles, users and applications from a JSON file (idempotent).
  keys rotate        Rotate the signing key; the previous key stays published for keys.gracePeriod.
  admin reset-secret Issue a new secret for the administrator application and print it once (the old
                     one stops working). SQLite: with the issuer stopped; PostgreSQL: any time.
  token              Exchange a personal access token at the running issuer and print the access token
                     (for testing an API with curl):
                       gatehouse-issuer token --pat <value> --resource <indicator> [--scope "a b"]
                                              --client-id <id>
                     The PAT may come from GATEHOUSE_PAT instead (keeps it out of the process list), the
                     client id from GATEHOUSE_CLIENT_ID; a confidential client's secret only from
                     GATEHOUSE_CLIENT_SECRET. The application must be enabled for token exchange.

Options:
  -c, --config <file>     JSON config file (default ./gatehouse-issuer.json when present; env GATEHOUSE_CONFIG)
      --base-url <url>    Public URL, e.g. http://localhost:3001 (env GATEHOUSE_BASE_URL)
      --port <n>          Port to listen on, default 3001 (env GATEHOUSE_PORT)
      --host <host>       Interface to bind, default 127.0.0.1 (env GATEHOUSE_HOST)
      --data-dir <dir>    Directory of the SQLite database, default ./.data (env GATEHOUSE_DATA_DIR)
      --database <db>     SQLite file, :memory:, or postgres://user:pass@host:5432/db for several
                          instances on one database (env GATEHOUSE_DATABASE or DATABASE_URL)
      --database-url <u>  The same as --database (for a postgres:// URL)
      --log-level <lvl>   fatal|error|warn|info|debug|trace|silent (env GATEHOUSE_LOG_LEVEL)
      --console <bool>    Serve the admin console at {base-url}/console, default true (env GATEHOUSE_CONSOLE)
  -h, --help              Show this help.
  -v, --version           Show the version.

Environment only: GATEHOUSE_ADMIN_CLIENT_ID and GATEHOUSE_ADMIN_CLIENT_SECRET fix the administrator
credentials (otherwise they are generated and printed by start); GATEHOUSE_TRUST_PROXY=true trusts X-Forwarded-* headers; GATEHOUSE_KEY_ALGORITHM picks
RS256 (default), PS256, ES256 or EdDSA for new keys; GATEHOUSE_POSTGRES_POOL_SIZE sets the PostgreSQL
connections per process (default 10).
Logs are JSON lines on standard output; messages for people (banner, credentials) go to standard error.`;
