/**
 * Ordered list of schema migrations. Append new files; never edit an applied one. Each migration
 * carries the same logical change in both dialects; `schema_migrations` records the versions applied
 * to a database, whichever driver applied them.
 *
 * @module
 */
import * as init from './0001-init.js';
import * as impersonation from './0002-impersonation.js';
import * as multiNode from './0003-multi-node.js';
import * as dpop from './0004-dpop.js';
import * as totp from './0005-totp.js';

/** One migration: a sortable version and the SQL it runs, per dialect. */
export interface Migration {
  readonly version: string;
  /** SQL for SQLite. */
  readonly sqlite: string;
  /** SQL for PostgreSQL. */
  readonly postgres: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([init, impersonation, multiNode, dpop, totp]);
