/**
 * What CLI commands read and write, so tests can run them in-process.
 *
 * @module
 */
import type { DestinationStream } from 'pino';
import type { IssuerConfig } from '../issuer-config.js';
import type { ParsedArgs } from './args.js';
import { loadSettings, type SettingOrigin, unknownVariables } from './config.js';

/**
 * Streams, environment and working directory of one CLI run.
 *
 * @example
 * ```ts
 * const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
 * ```
 */
export interface CliIo {
  /** Messages for people (banner, credentials, results). */
  readonly stderr: { write(text: string): unknown };
  /** Machine-readable output (JSON results of one-shot commands). */
  readonly stdout: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Where JSON log lines go. Default: standard output. */
  readonly logs?: DestinationStream | undefined;
}

/** Where the settings of each run came from, for error messages. */
const ORIGINS = new WeakMap<CliIo, ReadonlyMap<string, SettingOrigin>>();

/**
 * The issuer configuration for a parsed command line. A set `GATEHOUSE_*` variable the issuer does
 * not read is reported on standard error, one line each ({@link unknownVariables}).
 *
 * @example
 * ```ts
 * const config = configFor(parseArgs(['start', '--port', '3002']), io);
 * ```
 */
export function configFor(args: ParsedArgs, io: CliIo): IssuerConfig {
  const { config, origins } = loadSettings({
    file: args.config,
    flags: args.flags,
    flagNames: args.flagNames,
    env: io.env,
    cwd: io.cwd,
  });
  ORIGINS.set(io, origins);
  for (const warning of unknownVariables(io.env)) io.stderr.write(`${warning}\n`);
  return io.logs === undefined ? config : { ...config, log: { ...config.log, destination: io.logs } };
}

/**
 * Where each setting of the run's configuration came from (empty before {@link configFor} ran).
 *
 * @example
 * ```ts
 * originsOf(io).get('port'); // { kind: 'flag', name: '--port' }
 * ```
 */
export function originsOf(io: CliIo): ReadonlyMap<string, SettingOrigin> {
  return ORIGINS.get(io) ?? new Map();
}
