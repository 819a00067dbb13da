#!/usr/bin/env node
/**
 * Render the benchmark results as SVG bar charts for docs/performance.md, with no dependencies:
 *
 * - `bench/results/core-verify.json` → `docs/img/core-verify.svg` (verifications per second per
 *   algorithm: the raw signature floor, jose, Gatehouse; the cached path as a note),
 * - `bench/results/http.json`, when present → `docs/img/http.svg` (requests per second per framework
 *   and algorithm: hand-written jose, the fastest peer library, Gatehouse, Gatehouse with its cache, and
 *   the bare framework).
 *
 * Output is a pure function of the JSON (no dates, no randomness), so a test can check that the
 * committed images are up to date: run `node scripts/perf-chart.mjs` after `./dev bench`.
 *
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where each chart comes from and goes to, relative to the repository root. */
export const CHARTS = Object.freeze([
  { input: 'bench/results/core-verify.json', output: 'docs/img/core-verify.svg', render: renderCoreChart },
  { input: 'bench/results/http.json', output: 'docs/img/http.svg', render: renderHttpChart },
]);

const COLORS = Object.freeze({
  gatehouse: '#1f6feb',
  cached: '#7aa7f0',
  baseline: '#6e7781',
  floor: '#afb8c1',
  peer: '#bf8700',
  bare: '#d0d7de',
  text: '#24292f',
  muted: '#57606a',
  grid: '#eaeef2',
});

const xml = (text) =>
  String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** 12,345 */
export const thousands = (value) => Math.round(value).toLocaleString('en-US');

/** A "nice" axis maximum at or above `value`: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten. */
function niceMax(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/**
 * A horizontal grouped bar chart.
 *
 * @param {{
 *   title: string,
 *   subtitle: string,
 *   unit: string,
 *   groups: Array<{ label: string, bars: Array<{ label: string, value: number, color: string, note?: string }> }>,
 *   footnote?: string,
 * }} spec
 * @returns {string} an SVG document
 */
export function barChart(spec) {
  const width = 820;
  const left = 230;
  const right = 150;
  const barHeight = 16;
  const gap = 4;
  const groupGap = 16;
  const top = 64;
  const plot = width - left - right;
  const max = niceMax(Math.max(...spec.groups.flatMap((group) => group.bars.map((bar) => bar.value))));
  const x = (value) => left + (value / max) * plot;
  const parts = [];
  let y = top;
  for (const group of spec.groups) {
    parts.push(
      `<text x="12" y="${y + 12}" font-weight="600" fill="${COLORS.text}">${xml(group.label)}</text>`,
    );
    y += barHeight + gap;
    for (const bar of group.bars) {
      const w = Math.max(1, x(bar.value) - left);
      parts.push(
        `<text x="${left - 8}" y="${y + 12}" text-anchor="end" fill="${COLORS.muted}">${xml(bar.label)}</text>`,
        `<rect x="${left}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${bar.color}"><title>${xml(`${group.label} ${bar.label}: ${thousands(bar.value)} ${spec.unit}`)}</title></rect>`,
        `<text x="${(left + w + 6).toFixed(1)}" y="${y + 12}" fill="${COLORS.text}">${xml(thousands(bar.value))}${bar.note ? ` <tspan fill="${COLORS.muted}">${xml(bar.note)}</tspan>` : ''}</text>`,
      );
      y += barHeight + gap;
    }
    y += groupGap;
  }
  const bottom = y;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => share * max);
  const grid = ticks.map(
    (tick) =>
      `<line x1="${x(tick).toFixed(1)}" y1="${top - 6}" x2="${x(tick).toFixed(1)}" y2="${bottom - groupGap}" stroke="${COLORS.grid}"/>` +
      `<text x="${x(tick).toFixed(1)}" y="${bottom}" text-anchor="middle" fill="${COLORS.muted}" font-size="11">${xml(thousands(tick))}</text>`,
  );
  const height = bottom + (spec.footnote ? 36 : 16);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12" role="img" aria-label="${xml(spec.title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="24" font-size="16" font-weight="600" fill="${COLORS.text}">${xml(spec.title)}</text>`,
    `<text x="12" y="44" fill="${COLORS.muted}">${xml(spec.subtitle)}</text>`,
    ...grid,
    ...parts,
    spec.footnote
      ? `<text x="12" y="${height - 10}" fill="${COLORS.muted}" font-size="11">${xml(spec.footnote)}</text>`
      : '',
    '</svg>',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n')
    .concat('\n');
}

const ratio = (value) => `${value.toFixed(2)}x`;

/** The core verify() chart from `bench/results/core-verify.json`. */
export function renderCoreChart(results) {
  const groups = Object.entries(results.results).map(([alg, row]) => {
    const bars = [];
    if (row.floor)
      bars.push({ label: 'floor: crypto.verify only', value: row.floor.opsPerSec, color: COLORS.floor });
    if (row['floor-der'])
      bars.push({ label: 'floor, DER signature', value: row['floor-der'].opsPerSec, color: COLORS.floor });
    bars.push({ label: 'jose.jwtVerify', value: row.jose.opsPerSec, color: COLORS.baseline, note: '1.00x' });
    bars.push({
      label: 'Gatehouse verify()',
      value: row.gatehouse.opsPerSec,
      color: COLORS.gatehouse,
      note: `${ratio(row.gatehouse.xJose)} jose`,
    });
    return { label: alg, bars };
  });
  const cached = Object.entries(results.results)
    .filter(([, row]) => row.cached)
    .map(
      ([alg, row]) => `${alg} ${thousands(row.cached.opsPerSec)}/s (${Math.round(row.cached.xJose)}x jose)`,
    );
  return barChart({
    title: '@gatehouse/core verify(): verifications per second, one core (higher is better)',
    subtitle: `Node ${results.node}, ${results.rounds} rounds × ${results.sampleMs} ms, medians; ratios paired per round. Result cache off.`,
    unit: 'verifications/s',
    groups,
    footnote:
      cached.length === 0 ? undefined : `A repeated token from the result cache: ${cached.join(', ')}.`,
  });
}

const FRAMEWORK_NAMES = { express: 'Express', fastify: 'Fastify', koa: 'Koa' };

/** The adapters-over-HTTP chart from `bench/results/http.json`. */
export function renderHttpChart(results) {
  const groups = [];
  for (const [framework, summary] of Object.entries(results.summary)) {
    for (const [alg, row] of Object.entries(summary.algorithms)) {
      const configs = row.configs;
      const bars = [
        { label: 'hand-written jose', value: configs.jose.rps, color: COLORS.baseline, note: '1.00x' },
      ];
      if (row.fastestPeer && configs[row.fastestPeer])
        bars.push({
          label: row.fastestPeer,
          value: configs[row.fastestPeer].rps,
          color: COLORS.peer,
          note: `${ratio(configs[row.fastestPeer].xJose)} jose`,
        });
      bars.push({
        label: `@gatehouse/${framework}`,
        value: configs.gatehouse.rps,
        color: COLORS.gatehouse,
        note: `${ratio(configs.gatehouse.xJose)} jose`,
      });
      bars.push({
        label: `@gatehouse/${framework}, cached`,
        value: configs['gatehouse-cached'].rps,
        color: COLORS.cached,
        note: `${ratio(configs['gatehouse-cached'].xBare)} bare`,
      });
      bars.push({
        label: `bare ${FRAMEWORK_NAMES[framework] ?? framework}`,
        value: summary.bare.rps,
        color: COLORS.bare,
      });
      groups.push({ label: `${FRAMEWORK_NAMES[framework] ?? framework} ${alg}`, bars });
    }
  }
  const s = results.settings;
  return barChart({
    title: 'Adapters over HTTP: requests per second, server on one core (higher is better)',
    subtitle: `Node ${results.node}, ${results.cpu}; ${s.rounds} rounds × (${s.warmup} s warm-up + ${s.duration} s), ${s.connections} connections; medians.`,
    unit: 'requests/s',
    groups,
    footnote: 'Every request carries the same valid token; "cached" repeats it with the result cache on.',
  });
}

/**
 * Render every chart whose input exists; returns what was written (relative paths).
 *
 * @param {{ write?: boolean }} [options] `write: false` only renders (for tests)
 * @returns {Array<{ output: string, svg: string }>}
 */
export function renderAll({ write = true } = {}) {
  const done = [];
  for (const chart of CHARTS) {
    const input = join(root, chart.input);
    if (!existsSync(input)) continue;
    const svg = chart.render(JSON.parse(readFileSync(input, 'utf8')));
    if (write) {
      mkdirSync(dirname(join(root, chart.output)), { recursive: true });
      writeFileSync(join(root, chart.output), svg);
    }
    done.push({ output: chart.output, svg });
  }
  return done;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const { output } of renderAll()) console.log(`wrote ${output}`);
}
