#!/usr/bin/env node
/**
 * Generate docs/management-api.md from the issuer's own OpenAPI document, the one it serves at
 * `GET /api/openapi.json` (built from the same schemas that validate requests). Run it after changing
 * the Management API, from the repository root, with the packages built:
 *
 *     node scripts/management-api-doc.mjs
 *
 * The page is a pure function of the document (the issuer is started with the fixed base URL
 * {@link BASE_URL} and an in-memory database), so a test can check that the committed page is current.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The base URL the reference is written for (the CLI's default). */
export const BASE_URL = 'http://localhost:3001';

/** Where the page goes, relative to the repository root. */
export const OUTPUT = 'docs/management-api.md';

/** Bounds zod writes for "any safe integer": not worth showing. */
const SAFE = 9_007_199_254_740_991;

const refName = (ref) => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (name) => `schema-${name.toLowerCase()}`;
const code = (text) => `\`${String(text).replaceAll('`', "'")}\``;
const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A schema's type, as one line of Markdown. */
export function typeOf(schema) {
  if (schema === undefined || Object.keys(schema).length === 0) return 'any';
  if (schema.$ref) return `[${refName(schema.$ref)}](#${anchor(refName(schema.$ref))})`;
  if (schema.enum) return schema.enum.map((value) => code(JSON.stringify(value))).join(' \\| ');
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeOf).join(' \\| ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return types
    .map((type) => {
      if (type === 'array') return `${typeOf(schema.items)}[]`;
      if (type === 'object' && schema.properties === undefined) return 'object';
      return type;
    })
    .join(' \\| ');
}

/** Constraints worth telling a caller: lengths, ranges, formats, defaults. */
export function constraintsOf(schema) {
  if (schema === undefined) return '';
  const out = [];
  if (schema.format) out.push(schema.format);
  else if (schema.pattern) out.push(`pattern ${code(schema.pattern)}`);
  const range = (min, max, unit) =>
    min === undefined
      ? `at most ${max} ${unit}`
      : max === undefined
        ? `at least ${min} ${unit}`
        : `${min}–${max} ${unit}`;
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    out.push(range(schema.minLength, schema.maxLength, 'characters'));
  if (schema.minItems !== undefined || schema.maxItems !== undefined)
    out.push(range(schema.minItems, schema.maxItems, 'items'));
  const min = schema.minimum !== undefined && schema.minimum > -SAFE ? schema.minimum : undefined;
  const max = schema.maximum !== undefined && schema.maximum < SAFE ? schema.maximum : undefined;
  if (min !== undefined || max !== undefined) out.push(`${min ?? '−∞'}–${max ?? '∞'}`);
  if (schema.default !== undefined) out.push(`default ${code(JSON.stringify(schema.default))}`);
  if (schema.items?.maxLength !== undefined) out.push(`each at most ${schema.items.maxLength} characters`);
  if (schema.description) out.push(schema.description);
  return out.join('; ');
}

function schemaTable(schema) {
  if (schema.properties === undefined) return [`Type: ${typeOf(schema)}.`];
  const required = new Set(schema.required ?? []);
  const lines = ['| Field | Type | Required | Notes |', '| --- | --- | --- | --- |'];
  for (const [name, property] of Object.entries(schema.properties)) {
    lines.push(
      `| ${code(name)} | ${cell(typeOf(property))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(constraintsOf(property))} |`,
    );
  }
  if (schema.additionalProperties === false) lines.push('', 'Other fields are refused (`400`).');
  return lines;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Heading of the permission matrix's "no token" column. */
export const NO_TOKEN = 'no token';

/**
 * The permission matrix: for every operation, what a token holding one Management API scope (or none)
 * gets — `✓` (the scope lets the call through), `403` or `401`.
 *
 * @param {Record<string, any>} openapi the issuer's OpenAPI 3.1 document
 * @returns {{ scopes: string[], rows: { method: string, path: string, cells: Record<string, string> }[] }}
 */
export function permissionMatrix(openapi) {
  const scopes = Object.keys(openapi.components.securitySchemes.bearer.flows.clientCredentials.scopes);
  const prefix = new URL(openapi.servers[0].url).pathname.replace(/\/$/, '');
  const rows = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const allowed = new Set(op.security[0].bearer);
      const cells = { [NO_TOKEN]: '401' };
      for (const scope of scopes) cells[scope] = allowed.has(scope) ? '✓' : '403';
      rows.push({ method: method.toUpperCase(), path: `${prefix}${path}`, cells });
    }
  }
  return { scopes, rows };
}

/** What an operation's scope ceiling and audit event are, in words (`x-gatehouse-change`). */
function changeNote(change) {
  const acts = change.actsOn;
  const parts = [];
  if (acts.user) parts.push(`acts on the user \`{${acts.user}}\``);
  if (acts.application) parts.push(`acts on the application \`{${acts.application}}\``);
  if (acts.role) parts.push(`changes the role \`{${acts.role}}\``);
  if (acts.resource) parts.push(`changes the API resource \`{${acts.resource}}\``);
  if (acts.grantsRoles) parts.push('grants the roles of `roleIds`');
  if (acts.grantsScopes) parts.push('adds the scopes of `scopeIds`');
  const ceiling =
    parts.length === 0
      ? ''
      : ` Scope ceiling: ${parts.join('; ')} — refused with \`403\` unless the caller holds every scope it holds or grants (built-in entities: only with \`all\`).`;
  const recent =
    change.recentSignIn === undefined
      ? ''
      : ` A console user must have signed in within \`console.reauthenticateAfter\` seconds${change.recentSignIn === 'always' ? '' : ' when a role or scope granted carries a Management API scope'} (else \`401\` \`insufficient_user_authentication\` with \`max_age\`: sign in again).`;
  return `Records the audit event ${code(change.auditEvent)} in the same transaction.${ceiling}${recent}`;
}

/**
 * Render the reference page.
 *
 * @param {Record<string, any>} openapi the issuer's OpenAPI 3.1 document
 * @returns {string} Markdown
 */
export function renderManagementApiDoc(openapi) {
  const flows = openapi.components.securitySchemes.bearer.flows.clientCredentials;
  const server = openapi.servers[0].url;
  const prefix = new URL(server).pathname.replace(/\/$/, ''); // paths are relative to the server URL
  const operations = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const method of METHODS)
      if (item[method]) operations.push({ path: `${prefix}${path}`, method, op: item[method] });
  }
  const tags = [...new Set(operations.map(({ op }) => op.tags[0]))];
  const scopesOf = (op) => op.security[0].bearer.map(code).join(' or ');
  const opAnchor = ({ op }) => op.operationId.toLowerCase();

  const lines = [
    '# Management API reference',
    '',
    "<!-- Generated by scripts/management-api-doc.mjs from the issuer's OpenAPI document. Do not edit: run `node scripts/management-api-doc.mjs`. -->",
    '',
    `${openapi.info.description} This page is generated from the OpenAPI ${openapi.openapi} document the issuer serves at`,
    `\`GET /api/openapi.json\` (no authentication), written for the base URL \`${BASE_URL}\`; see`,
    '[issuer.md](issuer.md#management-api) for the conventions (errors, paging, limits) and a walkthrough.',
    '',
    '## Authentication',
    '',
    `Every operation needs \`Authorization: Bearer <token>\`, where the token comes from the client credentials grant at`,
    `\`${flows.tokenUrl}\` with \`resource=${server}\`, for a \`MachineToMachine\` application whose roles hold the scopes`,
    'below, or a token of a person signed in to the admin console (its own application), holding the scopes of their roles.',
    'Other user tokens and impersonation tokens (with `act`) are refused with `403`. The scopes count as the token',
    'carries them *and* as the caller’s roles grant them at the time of the request: a scope taken away works at once.',
    '',
    '| Scope | Grants |',
    '| --- | --- |',
    ...Object.entries(flows.scopes).map(
      ([scope, description]) => `| ${code(scope)} | ${cell(description)} |`,
    ),
    '',
    '## Operations',
    '',
    '| Method | Path | Summary | Scopes |',
    '| --- | --- | --- | --- |',
    ...operations.map(
      (entry) =>
        `| ${entry.method.toUpperCase()} | [${code(entry.path)}](#${opAnchor(entry)}) | ${cell(entry.op.summary)} | ${scopesOf(entry.op)} |`,
    ),
  ];

  const matrix = permissionMatrix(openapi);
  const columns = [NO_TOKEN, ...matrix.scopes];
  lines.push(
    '',
    '## Permission matrix',
    '',
    'What a token holding one Management API scope gets from each operation: `✓` — the call goes through to',
    'the operation (which may still answer `400`, `404`, `409`, or `403` from the scope ceiling below); `403` —',
    'refused (`insufficient_scope`); `401` — no token. A `<area>:write` scope also reads. The test',
    '`packages/issuer/test/management/permission-matrix.test.ts` runs this whole table against a live issuer, for',
    'machine-to-machine tokens and console users alike.',
    '',
    `| Method | Path | ${columns.map(code).join(' | ')} |`,
    `| --- | --- | ${columns.map(() => '---').join(' | ')} |`,
    ...matrix.rows.map(
      (row) =>
        `| ${row.method} | ${code(row.path)} | ${columns.map((column) => row.cells[column]).join(' | ')} |`,
    ),
    '',
    '## The scope ceiling',
    '',
    'Holding a route’s scope is not enough to change anything: a caller acts only within the scopes it holds,',
    'on principals that hold no more than it. A role may be granted (to a user or an application), and a scope',
    'added to a role, only by a caller holding every scope it grants — of the Management API and of every other',
    'API — or holding `all`. A user or an application may be changed, deleted, given or relieved of roles, and',
    'have its password, suspension, personal access tokens, secret or redirect URIs set, only by a caller holding',
    'every scope it holds. The built-in entities (the console’s application, the administrator application, the',
    'Management API resource and its scopes, the built-in roles) change only with `all`, and the console',
    'application’s redirect and logout URIs, type, authentication, secret and token-exchange switch never',
    'through the API (its configuration sets them at every start). A refusal is `403` with',
    '`{"code":"access_denied","reason":…}` (`role_exceeds_caller`, `scope_exceeds_caller`,',
    '`principal_exceeds_caller`, `built_in`, `configuration_only`, `scope_not_held`) and changes nothing. Every',
    'change is recorded as an audit event (who, the route, the target ids and the names of the fields sent,',
    'never their values) in the same transaction.',
  );

  for (const tag of tags) {
    lines.push('', `## ${tag}`);
    for (const entry of operations.filter(({ op }) => op.tags[0] === tag)) {
      const { op, method, path } = entry;
      lines.push(
        '',
        `### <a id="${opAnchor(entry)}"></a>${method.toUpperCase()} ${code(path)}`,
        '',
        `${op.summary}. Scopes: ${scopesOf(op)}.`,
      );
      if (op.parameters.length > 0) {
        lines.push('', '| Parameter | In | Type | Required | Notes |', '| --- | --- | --- | --- | --- |');
        for (const parameter of op.parameters) {
          lines.push(
            `| ${code(parameter.name)} | ${parameter.in} | ${cell(typeOf(parameter.schema))} | ${parameter.required ? 'yes' : 'no'} | ${cell(constraintsOf(parameter.schema))} |`,
          );
        }
      }
      const body = op.requestBody?.content['application/json']?.schema;
      if (body !== undefined) lines.push('', `Request body (JSON): ${typeOf(body)}.`);
      if (op['x-gatehouse-change'] !== undefined) lines.push('', changeNote(op['x-gatehouse-change']));
      lines.push('', '| Status | Meaning | Body |', '| --- | --- | --- |');
      for (const [status, response] of Object.entries(op.responses)) {
        const schema = response.content?.['application/json']?.schema;
        lines.push(
          `| ${status} | ${cell(response.description)} | ${schema === undefined ? '—' : cell(typeOf(schema))} |`,
        );
      }
    }
  }

  lines.push('', '## Schemas');
  for (const [name, schema] of Object.entries(openapi.components.schemas)) {
    lines.push('', `### <a id="${anchor(name)}"></a>${name}`, '', ...schemaTable(schema));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Start an issuer from the built package (in memory, silent), fetch its OpenAPI document, stop it.
 *
 * @param {(config: any) => Promise<any>} createIssuer `createIssuer` of `@gatehouse/issuer`
 * @returns {Promise<any>} the document
 */
export async function fetchOpenApi(createIssuer) {
  const issuer = await createIssuer({ baseUrl: BASE_URL, database: ':memory:', log: { level: 'silent' } });
  try {
    const { port } = await issuer.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/api/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
    return await res.json();
  } finally {
    await issuer.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { createIssuer } = await import(pathToFileURL(join(root, 'packages/issuer/dist/index.js')).href);
  writeFileSync(join(root, OUTPUT), renderManagementApiDoc(await fetchOpenApi(createIssuer)));
  console.log(`wrote ${OUTPUT}`);
}
