/**
 * docs/issuer.md and docs/impersonation.md state the same defaults as DEFAULTS and document every
 * Management API scope; impersonation.md has the sequence diagram and a curl example per step.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config/defaults.js';
import { RESERVED_CLAIMS } from '../src/customize/types.js';
import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from '../src/grants/token-exchange.js';
import { MANAGEMENT_SCOPES } from '../src/management/scopes.js';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/issuer.md'), 'utf8');
const impersonation = readFileSync(join(import.meta.dirname, '../../../docs/impersonation.md'), 'utf8');
const rowIn = (text: string, setting: string) =>
  text.split('\n').find((line) => line.startsWith(`| \`${setting}\``));
const row = (setting: string) => rowIn(doc, setting);

function impersonationDefaults(): Array<[string, unknown]> {
  return [
    ['subjectTokens.ttl', DEFAULTS.subjectTokens.ttl],
    ['tokenExchange.maxFailures', DEFAULTS.tokenExchange.maxFailures],
    ['tokenExchange.failureWindow', DEFAULTS.tokenExchange.failureWindow],
    ...Object.entries(DEFAULTS.customJwtClaims).map(([key, value]): [string, unknown] => [
      `customJwtClaims.${key}`,
      typeof value === 'string' ? `"${value}"` : value,
    ]),
  ];
}

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
    ...impersonationDefaults(),
  ];

  it.each(flat)('states %s = %s', (setting, value) => {
    expect(row(setting), `row for ${setting}`).toBeDefined();
    expect(row(setting)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it('lists every Management API scope', () => {
    for (const scope of MANAGEMENT_SCOPES) expect(doc).toContain(`\`${scope.name}\``);
  });
});

describe('docs/impersonation.md', () => {
  it.each(impersonationDefaults())('states %s = %s', (setting, value) => {
    expect(rowIn(impersonation, setting), `row for ${setting}`).toBeDefined();
    expect(rowIn(impersonation, setting)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it('has a Mermaid sequence diagram and a curl example for each step', () => {
    expect(impersonation).toMatch(/```mermaid\nsequenceDiagram/);
    const curls = impersonation
      .split('```sh')
      .slice(1)
      .map((block) => block.split('```')[0]!);
    const step = (pattern: RegExp) => curls.some((block) => /curl /.test(block) && pattern.test(block));
    expect(step(/\/api\/subject-tokens/)).toBe(true);
    expect(step(/grant-type:token-exchange[\s\S]*actor_token=/)).toBe(true);
    expect(step(/authorization: Bearer \$ACCESS_TOKEN/)).toBe(true);
    expect(step(/personal_access_token/)).toBe(true);
  });

  it('names the documented URNs and the reserved claims exactly', () => {
    for (const urn of [TOKEN_EXCHANGE_GRANT_TYPE, ...Object.values(TOKEN_TYPES)])
      expect(impersonation).toContain(urn);
    for (const claim of RESERVED_CLAIMS) expect(impersonation).toContain(`\`${claim}\``);
  });
});
