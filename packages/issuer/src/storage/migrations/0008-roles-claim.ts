/**
 * Migration 0008: API resources that opt in to a `roles` claim in their access tokens (the roles of
 * the token's subject that hold a scope of the resource). Off for every existing resource.
 *
 * @module
 */
export const version = '0008_roles_claim';

/** SQLite. */
export const sqlite = `
ALTER TABLE resources ADD COLUMN roles_claim INTEGER NOT NULL DEFAULT 0;
`;

/** PostgreSQL. */
export const postgres = `
ALTER TABLE resources ADD COLUMN roles_claim BOOLEAN NOT NULL DEFAULT FALSE;
`;
