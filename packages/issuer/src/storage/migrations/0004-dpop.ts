/**
 * Migration 0004: applications that require DPoP (RFC 9449 §5.2 `dpop_bound_access_tokens`): their
 * token requests without a DPoP proof are refused. Off for every existing application.
 *
 * @module
 */
export const version = '0004_dpop';

/** SQLite. */
export const sqlite = `
ALTER TABLE applications ADD COLUMN dpop_bound_access_tokens INTEGER NOT NULL DEFAULT 0;
`;

/** PostgreSQL. */
export const postgres = `
ALTER TABLE applications ADD COLUMN dpop_bound_access_tokens BOOLEAN NOT NULL DEFAULT FALSE;
`;
