/**
 * scripts/perf-chart.mjs: the SVG charts in docs/img are up to date with bench/results, and they show
 * the measured numbers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHARTS, renderAll, renderCoreChart, thousands } from '../../../scripts/perf-chart.mjs';

const root = join(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('scripts/perf-chart.mjs', () => {
  it('renders the core chart (and the HTTP one when its results exist)', () => {
    const outputs = renderAll({ write: false }).map((chart) => chart.output);
    expect(outputs).toContain('docs/img/core-verify.svg');
    expect(outputs.includes('docs/img/http.svg')).toBe(existsSync(join(root, 'bench/results/http.json')));
  });

  it.each(renderAll({ write: false }).map((chart) => [chart.output, chart.svg] as const))(
    '%s is up to date with the results (run: node scripts/perf-chart.mjs)',
    (output, svg) => {
      expect(existsSync(join(root, output)), `${output} is missing`).toBe(true);
      expect(read(output)).toBe(svg);
    },
  );

  it('draws one bar per measurement, labelled with the measured value', () => {
    const results = JSON.parse(read(CHARTS[0]!.input));
    const svg = renderCoreChart(results);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    const bars = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]));
    const measured = Object.values(
      results.results as Record<string, Record<string, { opsPerSec: number }>>,
    ).flatMap((row) =>
      ['floor', 'floor-der', 'jose', 'gatehouse'].filter((k) => row[k]).map((k) => row[k]!.opsPerSec),
    );
    expect(bars).toHaveLength(measured.length);
    for (const value of measured) expect(svg).toContain(`>${thousands(value)}`);
    // Bar lengths are proportional to the values.
    expect(bars[0]! / bars[2]!).toBeCloseTo(measured[0]! / measured[2]!, 2);
  });

  it('changes when a result changes, and escapes text', () => {
    const results = JSON.parse(read(CHARTS[0]!.input));
    const before = renderCoreChart(results);
    results.results.ES256.gatehouse.opsPerSec += 1000;
    results.node = 'v<24>&';
    const after = renderCoreChart(results);
    expect(after).not.toBe(before);
    expect(after).toContain('Node v&lt;24&gt;&amp;');
  });
});
