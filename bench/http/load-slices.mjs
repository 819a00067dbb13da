/**
 * The load generator of the interleaved benchmarks (lib/interleave.mjs), one process (pinned to core 1)
 * for a whole group of servers, so no process start lands inside a measurement. Reads its plan as one
 * JSON line on stdin (headers, connections, warm-up seconds, the servers' URLs and the slices in
 * order; the token stays out of argv and env), warms every server up, then runs autocannon for each
 * slice in turn. Prints one JSON line per warm-up and per slice (requests completed, measured time,
 * status counts, latency), then `{ "type": "done" }`. Exits when stdin closes (the benchmark is gone).
 */
import autocannon from 'autocannon';
import { exitWithParent } from './lib/exit-with-parent.mjs';

const plan = await new Promise((resolve) => {
  let input = '';
  const onData = (chunk) => {
    input += chunk;
    const end = input.indexOf('\n');
    if (end === -1) return;
    process.stdin.off('data', onData);
    resolve(JSON.parse(input.slice(0, end)));
  };
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', onData);
});
exitWithParent();

const { headers, connections, warmup, targets, slices } = plan;
const emit = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** One autocannon run of `seconds` against `url`: what it completed, in how long, with which statuses. */
async function load(url, seconds) {
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  const elapsedMs = result.finish.getTime() - result.start.getTime();
  return {
    total: result.requests.total,
    elapsedMs,
    rps: (result.requests.total * 1000) / elapsedMs,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
  };
}

if (warmup > 0)
  for (const [config, url] of Object.entries(targets))
    emit({ type: 'warmup', config, ...(await load(url, warmup)) });
for (const { config, round, seconds } of slices)
  emit({ type: 'slice', config, round, ...(await load(targets[config], seconds)) });
emit({ type: 'done' });
process.exit(0);
