/** docs/issuer.md states the same defaults as DEFAULTS, and documents every Management API route. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config/defaults.js';
import { MANAGEMENT_SCOPES } from '../src/management/scopes.js';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/issuer.md'), 'utf8');
const row = (setting: string) => doc.split('\n').find((line) => line.startsWith(`| \`${setting}\``));

describe('docs/issuer.md', () => {
  const flat: Array<[string, unknown]> = [
    ['port', DEFAULTS.port],
    ['host', `"${DEFAULTS.host}"`],
    ['dataDir', `"${DEFAULTS.dataDir}"`],
    ['trustProxy', DEFAULTS.trustProxy],
    ['log.level', `"${DEFAULTS.log.level}"`],
    ...Object.entries(DEFAULTS.keys).map(([key, value]): [string, unknown] => [
      `keys.${key}`,
      typeof value === 'string' ? `"${value}"` : value,
    ]),
    ...Object.entries(DEFAULTS.ttl).map(([key, value]): [string, unknown] => [`ttl.${key}`, value]),
    ...Object.entries(DEFAULTS.http).map(([key, value]): [string, unknown] => [`http.${key}`, value]),
    ...Object.entries(DEFAULTS.passwords).map(([key, value]): [string, unknown] => [
      `passwords.${key}`,
      value,
    ]),
  ];

  it.each(flat)('states %s = %s', (setting, value) => {
    expect(row(setting), `row for ${setting}`).toBeDefined();
    expect(row(setting)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it('lists every Management API scope', () => {
    for (const scope of MANAGEMENT_SCOPES) expect(doc).toContain(`\`${scope.name}\``);
  });
});
