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
    'below. User tokens and impersonation tokens (with `act`) are refused with `403`.',
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
