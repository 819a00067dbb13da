/**
 * From samples to results: ratios paired per round (each configuration against the bare framework, the
 * hand-written jose middleware and the fastest peer measured in the same round, same framework and
 * algorithm), medians across rounds, the targets, and the markdown table.
 */

export const TARGETS = Object.freeze({
  /** Gatehouse, result cache off, against hand-written jose in the same framework. */
  uncachedVsJose: 0.95,
  /** Gatehouse, result cache off, against the fastest peer library for the framework. */
  uncachedVsPeer: 1.3,
  /** Gatehouse, result cache on with a repeated token, against the bare framework. */
  cachedVsBare: 0.75,
});

export const median = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const round3 = (v) => (v === null ? null : Math.round(v * 1000) / 1000);
const clean = (s) => s.ok && s.non2xx === 0 && s.errors === 0 && s.timeouts === 0;

/**
 * @param {Array<object>} samples one entry per server run: round, framework, alg (null for bare), config, kind, rps, …
 */
export function summarize(samples, frameworks, algorithms) {
  const find = (round, framework, alg, config) =>
    samples.find(
      (s) => s.round === round && s.framework === framework && s.alg === alg && s.config === config,
    );
  const summary = {};
  for (const framework of frameworks) {
    const mine = samples.filter((s) => s.framework === framework);
    const rounds = [...new Set(mine.map((s) => s.round))];
    const bareRuns = mine.filter((s) => s.config === 'bare');
    summary[framework] = {
      bare: {
        rps: median(bareRuns.map((s) => s.rps)),
        latencyP50: median(bareRuns.map((s) => s.latencyP50)),
        latencyP99: median(bareRuns.map((s) => s.latencyP99)),
        non2xx: bareRuns.reduce((n, s) => n + s.non2xx + s.errors + s.timeouts, 0),
        rounds: bareRuns.length,
      },
      algorithms: {},
    };
    for (const alg of algorithms) {
      const runs = mine.filter((s) => s.alg === alg);
      const configs = [...new Set(runs.map((s) => s.config))];
      const peers = configs.filter((c) => runs.find((s) => s.config === c)?.kind === 'peer');
      const ratios = {};
      for (const s of runs) {
        const bare = find(s.round, framework, null, 'bare');
        const jose = find(s.round, framework, alg, 'jose');
        const peerRps = peers
          .map((p) => find(s.round, framework, alg, p))
          .filter((p) => p !== undefined && clean(p))
          .map((p) => p.rps);
        const best = peerRps.length > 0 ? Math.max(...peerRps) : null;
        ratios[s.config] ??= { xBare: [], xJose: [], xPeer: [] };
        if (bare && clean(bare)) ratios[s.config].xBare.push(s.rps / bare.rps);
        if (jose && clean(jose)) ratios[s.config].xJose.push(s.rps / jose.rps);
        if (best) ratios[s.config].xPeer.push(s.rps / best);
      }
      const table = {};
      for (const config of configs) {
        const list = runs.filter((s) => s.config === config);
        table[config] = {
          kind: list[0].kind,
          rps: median(list.map((s) => s.rps)),
          latencyP50: median(list.map((s) => s.latencyP50)),
          latencyP99: median(list.map((s) => s.latencyP99)),
          xBare: round3(median(ratios[config].xBare)),
          xJose: round3(median(ratios[config].xJose)),
          xFastestPeer: round3(median(ratios[config].xPeer)),
          non2xx: list.reduce((n, s) => n + s.non2xx + s.errors + s.timeouts, 0),
          failures: list.filter((s) => !s.ok).map((s) => s.failure),
          rounds: list.length,
        };
      }
      const fastestPeer = peers.reduce(
        (best, p) => (best === null || (table[p].rps ?? 0) > (table[best].rps ?? 0) ? p : best),
        null,
      );
      summary[framework].algorithms[alg] = { configs: table, fastestPeer, rounds: rounds.length };
    }
  }
  return summary;
}

/** Every target, per framework and algorithm, as { framework, alg, target, value, pass }. */
export function checkTargets(summary) {
  const out = [];
  for (const [framework, { bare, algorithms }] of Object.entries(summary)) {
    for (const [alg, { configs, fastestPeer }] of Object.entries(algorithms)) {
      const g = configs.gatehouse;
      const c = configs['gatehouse-cached'];
      const check = (target, value, min) =>
        out.push({
          framework,
          alg,
          target,
          value,
          pass: value !== null && value !== undefined && value >= min,
        });
      if (g) {
        check(`cache off ≥ ${TARGETS.uncachedVsJose}x hand-written jose`, g.xJose, TARGETS.uncachedVsJose);
        // A framework without peer libraries (NestJS) has no peer target.
        if (fastestPeer !== null)
          check(
            `cache off ≥ ${TARGETS.uncachedVsPeer}x fastest peer`,
            g.xFastestPeer,
            TARGETS.uncachedVsPeer,
          );
      }
      if (c)
        check(`cache on (repeated token) ≥ ${TARGETS.cachedVsBare}x bare`, c.xBare, TARGETS.cachedVsBare);
      const bad = bare.non2xx + Object.values(configs).reduce((n, r) => n + r.non2xx + r.failures.length, 0);
      out.push({
        framework,
        alg,
        target: '0 non-2xx responses, errors or failed checks',
        value: bad,
        pass: bad === 0,
      });
    }
  }
  return out;
}

const fmt = (v, digits = 0) => (v === null || v === undefined ? '–' : v.toFixed(digits));
const x = (v) => (v === null || v === undefined ? '–' : `${v.toFixed(2)}x`);

/** The markdown report. */
export function toMarkdown(result) {
  const { settings, summary, targets } = result;
  const lines = [
    '# HTTP benchmark',
    '',
    `Generated by \`node bench/http/run.mjs\` on ${result.date}: Node ${result.node}, ${result.cpu}.`,
    `${settings.rounds} round(s); each sample is a fresh server process ${settings.pinned ? 'pinned to core 0' : '(not pinned: taskset missing)'}, ` +
      `loaded by autocannon ${settings.pinned ? 'on core 1 ' : ''}with ${settings.connections} connections: ` +
      `${settings.warmup} s warm-up, then ${settings.duration} s measured. Every request carries the same ` +
      '`Authorization: Bearer` header (one token per algorithm for every configuration); the route answers `{ ok: true, sub }`.',
    'Ratios are paired per round (same round, framework and algorithm) and reported as medians.',
    '',
  ];
  if (settings.smoke) {
    lines.push('> **Smoke run**: too short to be meaningful; it only shows the harness works.', '');
  }
  lines.push(
    '## Targets',
    '',
    '| Framework | Alg | Target | Measured | Result |',
    '| --- | --- | --- | --- | --- |',
  );
  for (const t of targets) {
    const value = typeof t.value === 'number' && !Number.isInteger(t.value) ? x(t.value) : fmt(t.value);
    lines.push(`| ${t.framework} | ${t.alg} | ${t.target} | ${value} | ${t.pass ? 'PASS' : 'MISS'} |`);
  }
  for (const [framework, { bare, algorithms }] of Object.entries(summary)) {
    lines.push(
      '',
      `## ${framework}`,
      '',
      '| Configuration | Alg | req/s | p50 ms | p99 ms | × bare | × jose | × fastest peer | non-2xx |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| bare ${framework} | – | ${fmt(bare.rps)} | ${fmt(bare.latencyP50, 1)} | ${fmt(bare.latencyP99, 1)} | 1.00x | – | – | ${bare.non2xx} |`,
    );
    for (const [alg, { configs, fastestPeer }] of Object.entries(algorithms)) {
      for (const [name, r] of Object.entries(configs)) {
        const label = name === fastestPeer ? `${name} (fastest peer)` : name;
        const failed = r.failures.length > 0 ? ` (${r.failures.length} failed check)` : '';
        lines.push(
          `| ${label} | ${alg} | ${fmt(r.rps)} | ${fmt(r.latencyP50, 1)} | ${fmt(r.latencyP99, 1)} | ${x(r.xBare)} | ${x(r.xJose)} | ${x(r.xFastestPeer)} | ${r.non2xx}${failed} |`,
        );
      }
    }
  }
  lines.push(
    '',
    '## Versions',
    '',
    ...Object.entries(result.versions).map(([name, v]) => `- ${name} ${v}`),
    '',
  );
  return lines.join('\n');
}
