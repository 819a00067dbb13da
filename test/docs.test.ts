/**
 * The option tables in docs/ state the same defaults as the packages' frozen DEFAULTS objects; every
 * package.json, ./dev and the docs state one Node.js floor.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTER_DEFAULTS, DEFAULTS, TELEMETRY_NAMES } from '../packages/core/src/index.js';

const root = join(import.meta.dirname, '..');
const coreDoc = readFileSync(join(root, 'docs/core.md'), 'utf8');

function row(option: string): string {
  const line = coreDoc
    .split('\n')
    .find((l) => l.startsWith(`| \`${option}\``) || l.startsWith(`| \`${option}\` /`));
  if (line === undefined) throw new Error(`docs/core.md has no row for ${option}`);
  return line;
}

describe('docs/core.md options table', () => {
  it.each(Object.entries(DEFAULTS.jwks))('states jwks.%s = %s', (key, value) => {
    const line = coreDoc
      .split('\n')
      .find((l) => l.startsWith('| ') && l.split('|')[1]!.includes(`\`jwks.${key}\``));
    expect(line, `row for jwks.${key}`).toBeDefined();
    expect(line).toContain(`\`${Array.isArray(value) ? JSON.stringify(value) : value}\``);
  });

  it.each(Object.entries(DEFAULTS.issuerCache))('states issuerCache.%s = %s', (key, value) => {
    const line = coreDoc
      .split('\n')
      .find((l) => l.startsWith('| ') && l.split('|')[1]!.includes(`\`issuerCache.${key}\``));
    expect(line, `row for issuerCache.${key}`).toBeDefined();
    expect(line).toContain(`${value}`);
  });

  it('states the scalar defaults', () => {
    expect(row('clockTolerance')).toContain(`\`${DEFAULTS.clockTolerance}\``);
    expect(row('maxTokenLength')).toContain(`\`${DEFAULTS.maxTokenLength}\``);
    expect(row('realm')).toContain(`\`"${DEFAULTS.realm}"\``);
    expect(row('strict')).toContain(`\`${DEFAULTS.strict}\``);
    expect(row('allowInsecureHttp')).toContain(`\`${DEFAULTS.allowInsecureHttp}\``);
    expect(row('cache')).toContain(`\`{ max: ${DEFAULTS.cache.max} }\``);
    expect(row('tokenSources')).toContain(
      `\`{ query: ${DEFAULTS.tokenSources.query}, body: ${DEFAULTS.tokenSources.body} }\``,
    );
    expect(row('algorithms')).toContain(`\`${DEFAULTS.algorithms.join(' ')}\``);
    expect(row('introspection.mode')).toContain(`\`"${DEFAULTS.introspection.mode}"\``);
    expect(row('introspection.cacheMaxAge')).toContain(`\`${DEFAULTS.introspection.cacheMaxAge}\``);
    expect(row('introspection.timeout')).toContain(`\`${DEFAULTS.introspection.timeout}\``);
  });
});

describe('docs/observability.md', () => {
  const doc = readFileSync(join(root, 'docs/observability.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Resource servers (@gatehouse/core and the adapters)'));

  it('has the resource servers’ section', () => {
    expect(doc).toContain('\n## Resource servers (@gatehouse/core and the adapters)\n');
  });

  it.each(Object.values(TELEMETRY_NAMES.metrics))('states $name: its instrument and unit', (spec) => {
    const line = section.split('\n').find((l) => l.startsWith(`| \`${spec.name}\` |`));
    expect(line, `row for ${spec.name}`).toBeDefined();
    const cells = line!.split('|').map((cell) => cell.trim());
    expect(cells[2]).toBe(spec.kind);
    expect(cells[3]).toBe(`\`${spec.unit}\``);
  });

  it.each(Object.values(TELEMETRY_NAMES.attributes))('names the attribute %s', (attribute) => {
    expect(section).toContain(`\`${attribute}\``);
  });

  it.each(['recordSubject', 'spans'] as const)('names the span and the %s default', (option) => {
    expect(section).toContain(`\`${TELEMETRY_NAMES.span}\``);
    const row = section.split('\n').find((l) => l.startsWith(`| \`telemetry.${option}\` |`));
    expect(row).toContain(`\`${DEFAULTS.telemetry[option]}\``);
  });
});

describe('docs/adapters.md options tables', () => {
  const adaptersDoc = readFileSync(join(root, 'docs/adapters.md'), 'utf8');
  const cell = (option: string): string => {
    const line = adaptersDoc.split('\n').find((l) => new RegExp(`^\\|\\s*\`${option}\`\\s*\\|`).test(l));
    if (line === undefined) throw new Error(`docs/adapters.md has no row for ${option}`);
    return line.split('|')[2]!.trim();
  };

  it.each(Object.entries(ADAPTER_DEFAULTS))('states %s = %s', (option, value) => {
    expect(cell(option)).toBe(typeof value === 'string' ? `\`"${value}"\`` : `\`${value}\``);
  });
});

describe('docs/dpop.md options table', () => {
  const dpopDoc = readFileSync(join(root, 'docs/dpop.md'), 'utf8');
  const cell = (option: string): string => {
    const line = dpopDoc.split('\n').find((l) => l.startsWith(`| \`${option}\` |`));
    if (line === undefined) throw new Error(`docs/dpop.md has no row for ${option}`);
    return line.split('|')[2]!.trim();
  };

  it('states DEFAULTS.dpop and DEFAULTS.mtls', () => {
    const d = DEFAULTS.dpop;
    expect(cell('dpop.mode')).toBe(`\`"${d.mode}"\``);
    expect(cell('dpop.algorithms')).toBe(`\`${d.algorithms.join(' ')}\``);
    expect(cell('dpop.iatWindow')).toBe(`\`${d.iatWindow}\``);
    expect(cell('dpop.iatLeeway')).toBe(`\`${d.iatLeeway}\``);
    expect(cell('dpop.maxProofLength')).toBe(`\`${d.maxProofLength}\``);
    expect(cell('dpop.nonce')).toBe(`\`${d.nonce}\``);
    expect(cell('dpop.nonce.lifetime')).toBe(`\`${d.nonceLifetime}\``);
    expect(cell('dpop.replayStore')).toContain(`\`${d.replayStoreMax}\``);
    expect(cell('mtls.mode')).toBe(`\`"${DEFAULTS.mtls.mode}"\``);
    expect(DEFAULTS.mtls.certificateHeader).toBeUndefined();
  });
});

describe('the Node.js floor', () => {
  const floor = /^NODE_FLOOR=(\d+\.\d+)$/m.exec(readFileSync(join(root, 'dev'), 'utf8'))?.[1];

  it('is the "engines" of every package.json', () => {
    expect(floor).toMatch(/^22\.\d+$/);
    const manifests = ['package.json'];
    for (const dir of ['packages', 'examples'])
      for (const entry of readdirSync(join(root, dir))) manifests.push(`${dir}/${entry}/package.json`);
    for (const manifest of manifests) {
      const { engines } = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as {
        engines?: { node?: string };
      };
      expect(engines?.node, manifest).toBe(`>=${floor}`);
    }
  });

  it('is the only Node 22 version the docs name', () => {
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'))];
    let named = 0;
    for (const page of pages) {
      const text = readFileSync(join(root, page === 'README.md' ? page : `docs/${page}`), 'utf8');
      // "Node.js 22.x", "Node.js >= 22.x", "(>= 22.x", "older than 22.x" (not benchmark numbers).
      for (const [, version] of text.matchAll(
        /(?:Node(?:\.js)?\s*(?:>=\s*)?|\(>=\s*|older than\s+)(22\.\d+)/g,
      )) {
        named++;
        expect(version, page).toBe(floor);
      }
    }
    expect(named).toBeGreaterThan(3);
  });
});
