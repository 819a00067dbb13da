/**
 * docs/management-api.md is generated from the issuer's OpenAPI document by
 * scripts/management-api-doc.mjs, and is up to date with the issuer's routes and schemas.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIssuer, MANAGEMENT_SCOPES } from '@gatehouse/issuer';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  fetchOpenApi,
  OUTPUT,
  renderManagementApiDoc,
  typeOf,
} from '../../../scripts/management-api-doc.mjs';

const committed = readFileSync(join(import.meta.dirname, '../../..', OUTPUT), 'utf8');
/** The parts of the OpenAPI document these tests read. */
interface OpenApi {
  paths: Record<string, Record<string, { summary: string }>>;
  components: { schemas: Record<string, unknown> };
}
let openapi: OpenApi;
beforeAll(async () => {
  openapi = (await fetchOpenApi(createIssuer)) as OpenApi;
});

describe('docs/management-api.md', () => {
  it('is up to date with the issuer’s OpenAPI document (run: node scripts/management-api-doc.mjs)', () => {
    expect(committed).toBe(renderManagementApiDoc(openapi));
  });

  it('lists every operation, every scope and every schema of the document', () => {
    for (const [path, item] of Object.entries(openapi.paths)) {
      for (const method of Object.keys(item))
        expect(committed).toContain(`| ${method.toUpperCase()} | [\`/api${path}\`]`);
    }
    for (const scope of MANAGEMENT_SCOPES) expect(committed).toContain(`| \`${scope.name}\` |`);
    for (const name of Object.keys(openapi.components.schemas)) expect(committed).toContain(`</a>${name}\n`);
  });

  it('changes when the document changes', () => {
    const changed = structuredClone(openapi);
    changed.paths['/users']!.get!.summary = 'List every user';
    expect(renderManagementApiDoc(changed)).not.toBe(committed);
  });

  it('describes types the way a reader expects', () => {
    expect(typeOf({ type: ['string', 'null'] })).toBe('string \\| null');
    expect(typeOf({ type: 'array', items: { $ref: '#/components/schemas/User' } })).toBe(
      '[User](#schema-user)[]',
    );
    expect(typeOf({ type: 'string', enum: ['SPA', 'Native'] })).toBe('`"SPA"` \\| `"Native"`');
  });
});
