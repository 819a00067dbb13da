/**
 * A CLIENT span per database statement, in the one place both drivers share: the {@link Executor} the
 * SQL store runs on (`storage/sql/index.ts` wraps the driver's executor with {@link traceStatements}).
 * Attributes follow OpenTelemetry's database conventions — `db.system.name` (`sqlite`, `postgresql`),
 * `db.query.summary` (also the span's name), `db.operation.name`, `db.collection.name` — and never hold
 * a parameter value, nor the statement's text. A transaction is a `db.transaction` span with its
 * statements as children.
 *
 * A statement is only traced inside a recording span (a traced request); with no SDK registered the
 * wrapper costs one look at the global tracer provider per statement.
 *
 * @module
 */
import { SpanKind } from '@opentelemetry/api';
import type { Executor } from '../storage/executor.js';
import { TRACING_NAMES } from './names.js';
import { summarize } from './query-summary.js';
import { inChildSpan, recordingParent } from './tracer.js';

const A = TRACING_NAMES.attributes;

/** `db.system.name` of each dialect. */
const SYSTEMS = Object.freeze({ sqlite: 'sqlite', postgres: 'postgresql' });

/**
 * `db`, with a span per statement and per transaction.
 *
 * @example
 * ```ts
 * const traced = traceStatements(driverExecutor);
 * await traced.one('SELECT * FROM users WHERE id = ?', ['usr_1']); // span 'SELECT users'
 * ```
 */
export function traceStatements(db: Executor): Executor {
  const system = SYSTEMS[db.dialect.name];
  const statement = <T>(sql: string, run: () => Promise<T>): Promise<T> => {
    // Summarized only inside a traced request: otherwise one look at the tracer and nothing more.
    if (recordingParent() === undefined) return run();
    const shape = summarize(sql);
    return inChildSpan(
      shape.summary,
      {
        [A.dbSystem]: system,
        [A.dbSummary]: shape.summary,
        ...(shape.operation === undefined ? {} : { [A.dbOperation]: shape.operation }),
        ...(shape.collection === undefined ? {} : { [A.dbCollection]: shape.collection }),
      },
      run,
      { kind: SpanKind.CLIENT },
    );
  };
  return {
    dialect: db.dialect,
    one: (sql, params) => statement(sql, () => db.one(sql, params)),
    many: (sql, params) => statement(sql, () => db.many(sql, params)),
    run: (sql, params) => statement(sql, () => db.run(sql, params)),
    script: (sql) => db.script(sql),
    transaction: (fn) =>
      inChildSpan(
        TRACING_NAMES.spans.transaction,
        { [A.dbSystem]: system },
        () => db.transaction((tx) => fn(traceStatements(tx))),
        { kind: SpanKind.CLIENT },
      ),
  };
}
