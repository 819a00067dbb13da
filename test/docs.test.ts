/**
 * The option tables in docs/ state the same defaults as the packages' frozen DEFAULTS objects.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADAPTER_DEFAULTS, DEFAULTS } from '../packages/core/src/index.js';

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
    const line = coreDoc.split('\n').find((l) => l.includes(`\`jwks.${key}\``));
    expect(line, `row for jwks.${key}`).toBeDefined();
    expect(line).toContain(`\`${value}\``);
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
