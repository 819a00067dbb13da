/**
 * The streams and environment `runCli` is given in a test, with what it writes kept: for tests that
 * start the CLI in-process and read its messages.
 */
import { tmpdir } from 'node:os';

/**
 * `io` for `runCli(args, io as never)`, with `env` as the whole environment; `stdout()` and `stderr()`
 * are what it wrote so far.
 *
 * @example
 * const cli = cliIo({ GATEHOUSE_SHUTDOWN_DRAIN_DELAY: '30' });
 * await runCli(['start', '--database', ':memory:', '--port', '0'], cli.io as never);
 * cli.stderr(); // 'Configuration error: …'
 */
export function cliIo(env: Record<string, string>) {
  let out = '';
  let err = '';
  const io = {
    stdout: {
      write: (text: string) => {
        out += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        return true;
      },
    },
    env,
    cwd: tmpdir(),
  };
  return { io, stdout: () => out, stderr: () => err };
}
