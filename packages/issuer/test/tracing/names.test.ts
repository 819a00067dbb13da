/** docs/observability.md's "Issuer: traces" names every span and attribute of TRACING_NAMES. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/tracing/names.js';

const doc = readFileSync(join(import.meta.dirname, '../../../../docs/observability.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Issuer: traces'));

describe('TRACING_NAMES', () => {
  it.each([...Object.values(TRACING_NAMES.spans), ...Object.values(TRACING_NAMES.attributes)])(
    '%s is documented',
    (name) => {
      expect(section).toContain(`\`${name}\``);
    },
  );
});
