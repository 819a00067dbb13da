/**
 * Command-line parsing: a command (one or two words), positional arguments and `--flag value` options.
 *
 * @module
 */
import { ConfigError } from '../errors.js';
import { didYouMean } from '../internal/suggest.js';
import { CLI_SETTINGS, parseValue, type SettingKind, settingsHelp } from './settings.js';

/**
 * Flags and the setting each sets: every setting of {@link CLI_SETTINGS} that has a flag, and its
 * aliases.
 *
 * @example
 * ```ts
 * FLAGS['--port']; // { setting: 'port', kind: 'integer' }
 * ```
 */
export const FLAGS: Readonly<Record<string, { readonly setting: string; readonly kind: SettingKind }>> =
  Object.freeze(
    Object.fromEntries(
      CLI_SETTINGS.flatMap((entry) =>
        [entry.flag, ...(entry.aliases ?? [])]
          .filter((flag) => flag !== undefined)
          .map((flag) => [flag, { setting: entry.setting, kind: entry.kind }]),
      ),
    ),
  );

/**
 * Options of one command (not settings), by flag: the name each is stored under in
 * `ParsedArgs.options`, the command it belongs to, and whether it takes a value (`boolean` options
 * take none: `--force`, or `--force=false`).
 *
 * @example
 * ```ts
 * COMMAND_OPTIONS['--pat']; // { name: 'pat', command: 'token', kind: 'string' }
 * ```
 */
export const COMMAND_OPTIONS: Readonly<
  Record<string, { readonly name: string; readonly command: string; readonly kind: 'string' | 'boolean' }>
> = Object.freeze({
  '--pat': { name: 'pat', command: 'token', kind: 'string' },
  '--resource': { name: 'resource', command: 'token', kind: 'string' },
  '--scope': { name: 'scope', command: 'token', kind: 'string' },
  '--client-id': { name: 'clientId', command: 'token', kind: 'string' },
  '--from': { name: 'from', command: 'copy', kind: 'string' },
  '--to': { name: 'to', command: 'copy', kind: 'string' },
  '--force': { name: 'force', command: 'copy', kind: 'boolean' },
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
  /** Command options (`--pat`, `--force` …), by name; a boolean option is `'true'` or `'false'`. */
  readonly options: Readonly<Record<string, string>>;
  /** The flag that set each command option (`pat` → `--pat`). */
  readonly optionFlags: Readonly<Record<string, string>>;
  readonly config: string | undefined;
  readonly help: boolean;
  readonly version: boolean;
}

/** Every option name the CLI knows, for "did you mean …?". */
const ALL_OPTIONS = [
  ...Object.keys(FLAGS),
  ...Object.keys(COMMAND_OPTIONS),
  '--config',
  '--help',
  '--version',
];

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
  const optionFlags: Record<string, string> = {};
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
      const option = COMMAND_OPTIONS[name];
      const flag = FLAGS[name];
      if (flag?.kind === 'boolean' || option?.kind === 'boolean') {
        // A boolean flag alone means true; `=true` / `=false` are accepted too.
        if (inline !== undefined && !/^(?:true|false)$/.test(inline))
          throw new ConfigError(name, 'takes no value (or =true / =false)');
        if (flag !== undefined) {
          flags[flag.setting] = inline !== 'false';
          flagNames[flag.setting] = name;
        } else {
          options[option!.name] = inline ?? 'true';
          optionFlags[option!.name] = name;
        }
        continue;
      }
      const value = inline ?? argv[++i];
      if (value === undefined) throw new ConfigError(name, 'needs a value');
      if (name === '-c' || name === '--config') config = value;
      else if (option !== undefined) {
        options[option.name] = value;
        optionFlags[option.name] = name;
      } else {
        if (flag === undefined)
          throw new ConfigError(name, `is not a known option${didYouMean(name, ALL_OPTIONS)} (see --help)`);
        flags[flag.setting] = parseValue(name, flag.kind, value);
        flagNames[flag.setting] = name;
      }
    } else words.push(arg);
  }
  const grouped = words[0] === 'keys' || words[0] === 'admin';
  const command = grouped && words[1] !== undefined ? `${words[0]} ${words[1]}` : words[0];
  const positionals = words.slice(command?.includes(' ') ? 2 : 1);
  return { command, positionals, flags, flagNames, options, optionFlags, config, help, version };
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
  copy               Copy an issuer's data from SQLite into an empty PostgreSQL database, in one
                     transaction, and check every table's count:
                       gatehouse-issuer copy --from <sqlite file> --to <postgres url> [--force]
                     --to may come from DATABASE_URL instead; --force replaces what the target holds.
  token              Exchange a personal access token at the running issuer and print the access token
                     (for testing an API with curl):
                       gatehouse-issuer token --pat <value> --resource <indicator> [--scope "a b"]
                                              --client-id <id>
                     The PAT may come from GATEHOUSE_PAT instead (keeps it out of the process list), the
                     client id from GATEHOUSE_CLIENT_ID; a confidential client's secret only from
                     GATEHOUSE_CLIENT_SECRET. The application must be enabled for token exchange.

Options:
  -c, --config <file>     JSON config file (default ./gatehouse-issuer.json when present; env GATEHOUSE_CONFIG)
  -h, --help              Show this help.
  -v, --version           Show the version.

${settingsHelp()}

Logs are JSON lines on standard output; messages for people (banner, credentials) go to standard error.`;
