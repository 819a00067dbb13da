/**
 * The interleaved method, for one group of configurations that are compared with each other (one
 * runtime or framework, one algorithm):
 *
 * 1. every configuration's server starts at once, each in its own process pinned to core 0 (an idle
 *    server costs nothing), and passes the preflight (preflight.mjs);
 * 2. ONE load generator process (load-slices.mjs, pinned to core 1) serves the whole group: it warms
 *    each server up, then runs `rounds` rounds of short slices, one slice per configuration per round,
 *    the order rotating each round; so no process start lands inside a measurement, and throughput
 *    drift of the machine (minutes) is shared by the slices it pairs (seconds apart);
 * 3. a configuration's rate in a round = requests completed / measured time of its slice; ratios are
 *    paired per round (same round, against a baseline of the group) and reported as the median of the
 *    rounds with their spread (min–max).
 *
 * Every response must be 2xx: non-2xx responses, errors and timeouts (warm-up included) are counted
 * and must be 0.
 *
 * A Node server under test runs with a fixed young generation ({@link NODE_SERVER_FLAGS}): all of them
 * alike, so the garbage collector's sizing is not one more difference between configurations.
 */
import { createInterface } from 'node:readline';
import { spawnGroup, stopGroup, waitForLine } from './children.mjs';
import { preflight } from './preflight.mjs';
import { median } from './report.mjs';

const loader = new URL('../load-slices.mjs', import.meta.url).pathname;

/**
 * V8 flags of every Node server under test: 16 MiB per semi-space of the young generation, fixed. Left
 * to V8, the young generation of a server that sits idle shrinks — and here every server idles while the
 * others take their slices — and each regrows at its own pace: in one NestJS run (CPU profiles of the
 * four servers) bare Nest spent 2.7 µs per request in the garbage collector, Nest with a no-op guard
 * 0.7 µs and Gatehouse 3.0 µs, differences larger than any guard's own code; with these flags all four
 * spent 0.66–0.72 µs. Bun's servers (JavaScriptCore) take no V8 flags.
 */
export const NODE_SERVER_FLAGS = Object.freeze(['--min-semi-space-size=16', '--max-semi-space-size=16']);

/**
 * Read the interleaved settings from the environment: BENCH_ROUNDS (rounds of slices), BENCH_DURATION
 * (seconds per slice: autocannon counts in whole seconds), BENCH_WARMUP (warm-up seconds per
 * configuration), BENCH_CONNECTIONS.
 *
 * @param {{ rounds: number, duration: number, warmup: number, connections: number }} defaults
 */
export function sliceSettings(defaults) {
  const int = (name, fallback, min) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < min) {
      console.error(`${name} must be a whole number >= ${min}`);
      process.exit(2);
    }
    return value;
  };
  return {
    rounds: int('BENCH_ROUNDS', defaults.rounds, 1),
    duration: int('BENCH_DURATION', defaults.duration, 1),
    warmup: int('BENCH_WARMUP', defaults.warmup, 0),
    connections: int('BENCH_CONNECTIONS', defaults.connections, 1),
  };
}

/** The configurations in round `round`'s order: rotated by one place per round. */
export const rotation = (configs, round) => {
  const at = round % configs.length;
  return [...configs.slice(at), ...configs.slice(0, at)];
};

/** Seconds a group of `count` configurations takes with `settings`, roughly (for the plan line). */
export const groupSeconds = (count, { rounds, duration, warmup }) => count * (warmup + rounds * duration + 1);

/**
 * Start one server under test pinned to core 0: `exe args` with BENCH_SERVER = JSON `spec`; resolves
 * once it prints `READY <port>`.
 *
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
export async function startServer(exe, args, spec, env = {}) {
  const argv = exe === process.execPath ? [...NODE_SERVER_FLAGS, ...args] : args;
  const child = spawnGroup(0, exe, argv, { ...process.env, ...env, BENCH_SERVER: JSON.stringify(spec) });
  try {
    const [, port] = await waitForLine(child, /^READY (\d+)$/, `server ${spec.config}`);
    return { child, url: `http://127.0.0.1:${port}/orders` };
  } catch (error) {
    await stopGroup(child);
    throw error;
  }
}

/**
 * Measure one group.
 *
 * @param {object} group
 * @param {string} group.label for the progress lines (e.g. `node ES256`)
 * @param {Array<{ config: string, guarded: boolean }>} group.configs in the order of round 0
 * @param {(config: string) => Promise<{ child: import('node:child_process').ChildProcess, url: string }>} group.start
 * @param {{ good: string, tampered: string, noScope: string }} group.tokens
 * @param {{ rounds: number, duration: number, warmup: number, connections: number }} group.settings
 * @param {(line: string) => void} [group.log]
 * @returns {Promise<{ warmups: object[], slices: object[] }>} what load-slices.mjs reported
 */
export async function measureGroup({ label, configs, start, tokens, settings, log = console.log }) {
  const servers = [];
  try {
    const targets = {};
    for (const { config, guarded } of configs) {
      const server = await start(config);
      servers.push(server);
      const problem = await preflight(server.url, guarded, tokens);
      if (problem) throw new Error(`${label} ${config}: check failed: ${problem}`);
      targets[config] = server.url;
    }
    const names = configs.map((c) => c.config);
    const slices = [];
    for (let round = 0; round < settings.rounds; round++)
      for (const config of rotation(names, round)) slices.push({ config, round, seconds: settings.duration });
    return await runLoader(
      {
        headers: { authorization: `Bearer ${tokens.good}` },
        connections: settings.connections,
        warmup: settings.warmup,
        targets,
        slices,
      },
      (line) => {
        const where = line.type === 'warmup' ? 'warm-up' : `round ${line.round + 1}/${settings.rounds}`;
        const bad = line.non2xx + line.errors + line.timeouts;
        log(
          `${label.padEnd(22)} ${where.padEnd(13)} ${line.config.padEnd(22)} ${String(Math.round(line.rps)).padStart(7)} req/s` +
            `  p99 ${line.latencyP99} ms${bad > 0 ? `  NON-2XX/ERRORS ${bad}` : ''}`,
        );
      },
      groupSeconds(configs.length, settings) + 60,
    );
  } finally {
    for (const { child } of servers) await stopGroup(child);
  }
}

/** Run load-slices.mjs with `plan`; resolves to its warm-ups and slices once it says done. */
async function runLoader(plan, onLine, limitSeconds) {
  const child = spawnGroup(1, process.execPath, [loader]);
  const warmups = [];
  const slices = [];
  try {
    const done = new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`load generator: not done within ${limitSeconds} s`)),
        limitSeconds * 1000,
      );
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`load generator exited (${code ?? signal}) before it was done`));
      });
      createInterface({ input: child.stdout }).on('line', (text) => {
        const line = JSON.parse(text);
        if (line.type === 'done') {
          clearTimeout(timer);
          resolve();
          return;
        }
        (line.type === 'warmup' ? warmups : slices).push(line);
        onLine(line);
      });
    });
    child.stdin.write(`${JSON.stringify(plan)}\n`);
    await done;
    return { warmups, slices };
  } finally {
    await stopGroup(child);
  }
}

/** Non-2xx responses, errors and timeouts of a list of load lines. */
export const badResponses = (lines) => lines.reduce((n, l) => n + l.non2xx + l.errors + l.timeouts, 0);

const spread = (values) => {
  const finite = values.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length > 0 ? Math.min(...finite) : null,
    max: finite.length > 0 ? Math.max(...finite) : null,
    rounds: finite,
  };
};

/**
 * Per configuration of a measured group: its rate (median of rounds), latency, the ratios against
 * each of `baselines` paired per round (median, min, max, every round), and its bad responses.
 *
 * @param {{ warmups: object[], slices: object[] }} measured
 * @param {string[]} configs
 * @param {string[]} baselines configurations of the group to divide by
 */
export function pairedSummary({ warmups, slices }, configs, baselines) {
  const rate = (config, round) => slices.find((s) => s.config === config && s.round === round)?.rps;
  const summary = {};
  for (const config of configs) {
    const own = slices.filter((s) => s.config === config);
    const ratios = {};
    for (const baseline of baselines.filter((b) => configs.includes(b)))
      ratios[baseline] = spread(own.map((s) => s.rps / rate(baseline, s.round)));
    summary[config] = {
      rps: spread(own.map((s) => s.rps)),
      latencyP50: median(own.map((s) => s.latencyP50)),
      latencyP99: median(own.map((s) => s.latencyP99)),
      requests: own.reduce((n, s) => n + s.total, 0),
      badResponses: badResponses([...own, ...warmups.filter((w) => w.config === config)]),
      ratios,
    };
  }
  return summary;
}

/** `0.93x (0.88–0.97)`: a paired ratio with its spread, or `–`. */
export const formatRatio = (r) =>
  r === undefined || r.median === null
    ? '–'
    : r.min.toFixed(2) !== r.max.toFixed(2)
      ? `${r.median.toFixed(2)}x (${r.min.toFixed(2)}–${r.max.toFixed(2)})`
      : `${r.median.toFixed(2)}x`;
