/**
 * Ordered list of schema migrations. Append new files; never edit an applied one (their SQL is pinned by
 * test/storage/migrations/dialect.test.ts). Each migration is written once for both dialects
 * (`defineMigration`); `schema_migrations` records the versions applied to a database, whichever driver
 * applied them.
 *
 * @module
 */
import init from './0001-init.js';
import impersonation from './0002-impersonation.js';
import multiNode from './0003-multi-node.js';
import dpop from './0004-dpop.js';
import totp from './0005-totp.js';
import impersonationControl from './0006-impersonation-control.js';
import webhooks from './0007-webhooks.js';
import rolesClaim from './0008-roles-claim.js';
import configNotify from './0009-config-notify.js';
import webhookEgress from './0010-webhook-egress.js';
import auditTrace from './0011-audit-trace.js';
import type { Migration } from './dialect.js';

export type { Migration } from './dialect.js';

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = Object.freeze([
  init,
  impersonation,
  multiNode,
  dpop,
  totp,
  impersonationControl,
  webhooks,
  rolesClaim,
  configNotify,
  webhookEgress,
  auditTrace,
]);
