/**
 * The `gatehouse-issuer` command once the Node.js version is known to be good (`index.ts`): run the
 * command, keep `start` running until SIGINT/SIGTERM, exit with the command's code otherwise. The
 * first signal starts a graceful shutdown (`issuer.shutdown()`: exit 0 when everything finished within
 * `shutdown.drainTimeout`, 1 when something was cut); a second one cuts it short at once.
 *
 * @module
 */
import { runCli } from './run.js';

const result = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
if (result.issuer === undefined) {
  process.exitCode = result.code;
} else {
  const issuer = result.issuer;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`Received ${signal} again, closing now.\n`);
      void issuer.close();
      return;
    }
    stopping = true;
    const { drainDelay, drainTimeout } = issuer.config.shutdown;
    process.stderr.write(
      `Received ${signal}, shutting down (drain delay ${drainDelay} s, at most ${drainTimeout} s).\n`,
    );
    issuer.shutdown(signal).then(
      ({ clean }) => process.exit(clean ? 0 : 1),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
