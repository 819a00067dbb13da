/**
 * A statement's low-cardinality description for its span, as OpenTelemetry's database conventions
 * define `db.query.summary`: its operations and the tables they act on, in order
 * (`SELECT users`, `INSERT audit_events SELECT`, `UPDATE subject_tokens INSERT audit_events`), never a
 * value. The store's statements are a bounded set, so each is summarized once and remembered.
 *
 * @module
 */

/**
 * What a statement's span records of it.
 *
 * @example
 * ```ts
 * const { summary } = summarize('SELECT * FROM users WHERE id = ?'); // 'SELECT users'
 * ```
 */
export interface StatementShape {
  /** `db.query.summary`, also the span's name. */
  readonly summary: string;
  /** `db.operation.name`, when the statement does one operation. */
  readonly operation: string | undefined;
  /** `db.collection.name`, when the statement acts on one table. */
  readonly collection: string | undefined;
}

const OPERATIONS = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']);
/** Keywords after which the next word names a table. */
const TABLE_BEFORE = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE', 'TABLE']);
/** Words that can follow those keywords and are not tables. */
const NOT_TABLES = new Set(['ONLY', 'SELECT', 'LATERAL', 'JSON_EACH', 'UNNEST', 'IF', 'EXISTS', 'NOT']);
const MAX_SUMMARY = 255;
const MAX_REMEMBERED = 2_000;

const remembered = new Map<string, StatementShape>();

/**
 * The shape of `sql` (remembered per text).
 *
 * @example
 * ```ts
 * summarize('WITH changed AS (UPDATE t SET a = ? RETURNING *) SELECT * FROM changed').summary; // 'UPDATE t SELECT'
 * ```
 */
export function summarize(sql: string): StatementShape {
  let shape = remembered.get(sql);
  if (shape === undefined) {
    shape = shapeOf(sql);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(sql, shape);
  }
  return shape;
}

function shapeOf(sql: string): StatementShape {
  // Literals, quoted names and comments out; then words and parentheses only.
  const text = sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, ' ? ')
    .replace(/"((?:[^"]|"")*)"/g, (_m, name: string) => ` ${/^\w+$/.test(name) ? name : '?'} `);
  const words = text.match(/[A-Za-z_][\w.$]*/g) ?? [];
  const cteNames = new Set<string>();
  for (const match of text.matchAll(/([A-Za-z_]\w*)\s+AS\s*(?:MATERIALIZED\s*)?\(/gi))
    cteNames.add(match[1]!.toLowerCase());
  const parts: string[] = [];
  const operations = new Set<string>();
  const tables = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    const upper = words[i]!.toUpperCase();
    if (OPERATIONS.has(upper)) {
      operations.add(upper);
      if (parts.at(-1) !== upper) parts.push(upper);
    }
    if (TABLE_BEFORE.has(upper)) {
      const next = words[i + 1];
      if (next === undefined || NOT_TABLES.has(next.toUpperCase()) || OPERATIONS.has(next.toUpperCase()))
        continue;
      const name = next.toLowerCase();
      if (cteNames.has(name)) continue;
      tables.add(name);
      if (parts.at(-1) !== name) parts.push(name);
    }
  }
  let summary = parts.join(' ');
  if (summary.length === 0) summary = (words[0] ?? 'statement').toUpperCase();
  if (summary.length > MAX_SUMMARY) summary = summary.slice(0, MAX_SUMMARY);
  return {
    summary,
    operation: operations.size === 1 ? [...operations][0] : undefined,
    collection: tables.size === 1 ? [...tables][0] : undefined,
  };
}
