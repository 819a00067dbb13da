/** `db.query.summary` of the store's statements: operations and tables in order, never a value. */
import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/tracing/query-summary.js';

describe('summarize', () => {
  it.each([
    ['SELECT * FROM users WHERE id = ?', 'SELECT users', 'SELECT', 'users'],
    [
      'INSERT INTO audit_events (id, type) SELECT CAST(? AS TEXT), CAST(? AS TEXT)',
      'INSERT audit_events SELECT',
      undefined,
      'audit_events',
    ],
    ['UPDATE users SET name = ? WHERE id = ?', 'UPDATE users', 'UPDATE', 'users'],
    ['DELETE FROM roles WHERE id = ?', 'DELETE roles', 'DELETE', 'roles'],
    [
      'SELECT u.id FROM users u JOIN user_roles r ON r.user_id = u.id WHERE u.id = ?',
      'SELECT users user_roles',
      'SELECT',
      undefined,
    ],
    [
      'WITH changed AS (UPDATE subject_tokens SET consumed_at = ? WHERE id = ? RETURNING *), recorded AS (INSERT INTO audit_events (id) SELECT CAST(? AS TEXT) FROM changed) SELECT * FROM changed',
      'UPDATE subject_tokens INSERT audit_events SELECT',
      undefined,
      undefined,
    ],
    ['SELECT pg_advisory_xact_lock(42)', 'SELECT', 'SELECT', undefined],
  ])('%s', (sql, summary, operation, collection) => {
    expect(summarize(sql)).toEqual({ summary, operation, collection });
  });

  it('keeps no literal of the statement: strings, quoted names with spaces, comments', () => {
    const { summary } = summarize(
      `SELECT * FROM users WHERE email = 'alice@example.com' AND "weird name" = ? -- secret-comment`,
    );
    expect(summary).toBe('SELECT users');
  });

  it('is bounded in length', () => {
    const sql = Array.from({ length: 100 }, (_, i) => `SELECT * FROM table_number_${i}`).join(' UNION ALL ');
    expect(summarize(sql).summary.length).toBeLessThanOrEqual(255);
  });
});
