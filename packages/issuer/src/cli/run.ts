/**
 * Dispatch a command line to its command. Used by the `gatehouse-issuer` binary and by tests.
 *
 * @module
 */
import { ConfigError, DatabaseConnectionError } from '../errors.js';
import { didYouMean } from '../internal/suggest.js';
import type { Issuer } from '../server.js';
import { COMMAND_OPTIONS, parseArgs, USAGE } from './args.js';
import { adminResetSecret } from './commands/admin-reset-secret.js';
import { copyCommand } from './commands/copy.js';
import { keysRotate } from './commands/keys-rotate.js';
import { migrate } from './commands/migrate.js';
import { seedCommand } from './commands/seed.js';
import { start } from './commands/start.js';
import { tokenCommand } from './commands/token.js';
import { type CliIo, originsOf } from './io.js';
import { explainConfigError } from './origins.js';
import { packageVersion } from './version.js';

/**
 * Outcome of one CLI run: an exit code, and the running issuer for `start`.
 *
 * @example
 * ```ts
 * const { code, issuer }: CliResult = await runCli(['start'], io);
 * ```
 */
export interface CliResult {
  readonly code: number;
  readonly issuer?: Issuer | undefined;
}

/** The commands, for "did you mean …?". */
const COMMANDS = ['start', 'migrate', 'seed', 'keys rotate', 'token', 'admin reset-secret', 'copy'];

/**
 * Run the CLI. Configuration errors print a message naming the setting and exit with 2.
 *
 * @example
 * ```ts
 * const { code } = await runCli(['migrate', '--data-dir', './.data'], { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<CliResult> {
  try {
    const args = parseArgs(argv);
    if (args.version) {
      io.stdout.write(`${packageVersion()}\n`);
      return { code: 0 };
    }
    if (args.help || args.command === undefined) {
      io.stderr.write(`${USAGE}\n`);
      return { code: args.help ? 0 : 2 };
    }
    for (const flag of Object.values(args.optionFlags)) {
      const { command } = COMMAND_OPTIONS[flag]!;
      if (args.command !== command)
        throw new ConfigError(flag, `is an option of the ${command} command only`);
    }
    switch (args.command) {
      case 'start':
        return { code: 0, issuer: await start(args, io) };
      case 'migrate':
        await migrate(args, io);
        return { code: 0 };
      case 'seed':
        await seedCommand(args, io);
        return { code: 0 };
      case 'keys rotate':
        await keysRotate(args, io);
        return { code: 0 };
      case 'token':
        await tokenCommand(args, io);
        return { code: 0 };
      case 'copy':
        await copyCommand(args, io);
        return { code: 0 };
      case 'admin reset-secret':
        await adminResetSecret(args, io);
        return { code: 0 };
      default:
        io.stderr.write(
          `Unknown command "${args.command}"${didYouMean(args.command, COMMANDS) || '.'}\n\n${USAGE}\n`,
        );
        return { code: 2 };
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`Configuration error: ${explainConfigError(err, originsOf(io)).message}\n`);
      return { code: 2 };
    }
    if (err instanceof DatabaseConnectionError) {
      const origin = originsOf(io).get('database');
      const setBy =
        origin === undefined
          ? ''
          : ` (${origin.kind === 'file' ? `"database" in ${origin.name}` : origin.name})`;
      io.stderr.write(
        `Error: cannot connect to the PostgreSQL database ${err.database}${setBy}: ${err.detail}\n`,
      );
      return { code: 1 };
    }
    const issues = (err as { issues?: Array<{ path: string; message: string }> }).issues;
    io.stderr.write(`Error: ${(err as Error).message}\n`);
    for (const issue of issues ?? []) io.stderr.write(`  ${issue.path}: ${issue.message}\n`);
    return { code: 1 };
  }
}
