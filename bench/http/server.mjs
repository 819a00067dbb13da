/**
 * One server under test, started by run.mjs (or nestjs.mjs) in a fresh process (pinned to core 0). Reads its
 * configuration from BENCH_SERVER (JSON: framework, config, alg, issuer, audience, jwksUri, scope),
 * listens on an ephemeral loopback port and prints `READY <port>`. Exits when its stdin closes (the
 * benchmark that started it is gone).
 */
import { exitWithParent } from './lib/exit-with-parent.mjs';

const spec = JSON.parse(process.env.BENCH_SERVER ?? '{}');
const { start } = await import(`./apps/${spec.framework}.mjs`);
const port = await start(spec.config, spec);
process.stdout.write(`READY ${port}\n`);
process.once('SIGTERM', () => process.exit(0));
exitWithParent();
