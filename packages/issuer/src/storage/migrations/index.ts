/**
 * Ordered list of schema migrations. Append new files; never edit an applied one.
 *
 * @module
 */
import * as init from './0001-init.js';
import * as impersonation from './0002-impersonation.js';

/** One migration: a sortable version and the SQL it runs. */
export interface Migration {
  readonly version: string;
  readonly sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([init, impersonation]);
