/**
 * What CLI commands read and write, so tests can run them in-process.
 *
 * @module
 */
import type { DestinationStream } from 'pino';
import type { IssuerConfig } from '../config/schema.js';
import type { ParsedArgs } from './args.js';
import { loadConfig } from './config.js';

/** Streams, environment and working directory of one CLI run. */
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

/** The issuer configuration for a parsed command line. */
export function configFor(args: ParsedArgs, io: CliIo): IssuerConfig {
  const config = loadConfig({ file: args.config, flags: args.flags, env: io.env, cwd: io.cwd });
  return io.logs === undefined ? config : { ...config, log: { ...config.log, destination: io.logs } };
}
