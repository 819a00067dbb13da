/**
 * `./dev demo`: start the issuer, the orders API, the support backend and the support console; run the
 * impersonation flow and print each step; then keep serving for the browser until Ctrl-C (or exit after
 * the flow with `--once` or when `CI` is set). Exit code 0 when every step behaved as promised.
 *
 * @module
 */
import { runFlow } from './flow.ts';
import { parseOptions, USAGE, UsageError } from './options.ts';
import { formatLine, formatServing, formatStart, formatStep, formatSummary, painter } from './print.ts';
import { startWorld, type World } from './world.ts';

const p = painter(process.stdout.isTTY === true && !process.env.NO_COLOR);
const fail = (message: string): never => {
  console.error(`demo: ${message}`);
  process.exit(1);
};

let options: ReturnType<typeof parseOptions>;
try {
  options = parseOptions(process.argv.slice(2), process.env);
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  if (err.message === USAGE) {
    console.log(USAGE);
    process.exit(0);
  }
  fail(err.message);
}

let world: World | undefined;
let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    await world?.close();
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log('\nStopping: servers closed, temporary data deleted.');
    void stop(0);
  });
}

try {
  world = await startWorld(options!);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const running = world!;
console.log(`${formatStart(running, p)}\n`);

let n = 0;
const result = await runFlow(running, (step) => console.log(`${formatStep(++n, step, p)}\n`));
console.log(formatSummary(result.ok, result.steps.length, p));

if (options!.once || !result.ok) {
  await stop(result.ok ? 0 : 1);
} else {
  console.log(`\n${formatServing(running, p)}\n`);
  running.onLine = (source, line) => console.log(formatLine(source, line, running, p));
}
