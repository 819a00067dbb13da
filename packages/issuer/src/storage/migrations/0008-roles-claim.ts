/**
 * Migration 0008: API resources that opt in to a `roles` claim in their access tokens (the roles of
 * the token's subject that hold a scope of the resource). Off for every existing resource.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0008_roles_claim',
  (d) => `
ALTER TABLE resources ADD COLUMN roles_claim ${d.flag} NOT NULL DEFAULT ${d.no};
`,
);
