/**
 * Migration 0007: signed webhooks. `webhook_endpoints` are the receivers registered through the
 * Management API (their signing secret encrypted, see `webhooks/secret-box.ts`), `webhook_subscriptions`
 * the event types each one receives (one row per type, so an audit event finds its receivers with one
 * indexed lookup), and `webhook_deliveries` the queue: one row per event and endpoint, written in the
 * same statement or transaction as the audit event, claimed by one issuer process at a time
 * (`claimed_until_ms`), retried until `next_attempt_ms` with exponential backoff.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0007_webhooks',
  (d) => `
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at ${d.time} NOT NULL,
  updated_at ${d.time} NOT NULL
);
CREATE TABLE webhook_subscriptions (
  event_type TEXT NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  PRIMARY KEY (event_type, endpoint_id)
);
CREATE INDEX webhook_subscriptions_endpoint ON webhook_subscriptions (endpoint_id);
CREATE TABLE webhook_deliveries (
  event_id TEXT NOT NULL,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_ms ${d.time} NOT NULL,
  claimed_until_ms ${d.time} NOT NULL DEFAULT 0,
  last_status INTEGER,
  last_error TEXT,
  created_at ${d.time} NOT NULL,
  last_attempt_at ${d.time},
  delivered_at ${d.time},
  PRIMARY KEY (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_ms);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at);
`,
);
