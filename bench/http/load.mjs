/**
 * The load generator, started by run.mjs in its own process (pinned to core 1). Reads its settings as
 * JSON on stdin (url, headers, connections, warmup, duration; the token stays out of argv and env),
 * runs autocannon for the warm-up (discarded but checked), then the measured run, and prints both
 * summaries as JSON.
 */
import autocannon from 'autocannon';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const { url, headers, connections, warmup, duration } = JSON.parse(input);

const run = async (seconds) => {
  const result = await autocannon({ url, headers, connections, duration: seconds, pipelining: 1 });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
};

const warm = warmup > 0 ? await run(warmup) : undefined;
const measured = await run(duration);
process.stdout.write(`${JSON.stringify({ warmup: warm, measured })}\n`);
