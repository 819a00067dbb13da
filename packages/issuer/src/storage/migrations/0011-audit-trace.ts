/**
 * Migration 0011: an audit event keeps the trace id of the request that recorded it (W3C Trace
 * Context, 32 lower-case hex digits), when that request was traced, so an event, the request's log
 * line and its trace join up.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0011_audit_trace',
  () => `
ALTER TABLE audit_events ADD COLUMN trace_id TEXT;
`,
);
