/**
 * The `gatehouse-issuer` command once the Node.js version is known to be good (`index.ts`): run the
 * command, keep `start` running until SIGINT/SIGTERM, exit with the command's code otherwise.
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
  const stop = (signal: string) => {
    process.stderr.write(`Received ${signal}, shutting down.\n`);
    issuer.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
