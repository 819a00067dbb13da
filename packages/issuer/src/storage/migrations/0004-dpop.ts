/**
 * Migration 0004: applications that require DPoP (RFC 9449 §5.2 `dpop_bound_access_tokens`): their
 * token requests without a DPoP proof are refused. Off for every existing application.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0004_dpop',
  (d) => `
ALTER TABLE applications ADD COLUMN dpop_bound_access_tokens ${d.flag} NOT NULL DEFAULT ${d.no};
`,
);
