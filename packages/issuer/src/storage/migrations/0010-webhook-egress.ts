/**
 * Migration 0010: webhook endpoints keep the secret a rotation replaced (sealed, like the current one)
 * and until when it still signs, and their health: since when every attempt has failed, and when the
 * endpoint was disabled for failing too long. The index finds the deliveries in flight per endpoint
 * (`claimed_until_ms` in the future), which bounds each endpoint's concurrency.
 *
 * @module
 */
import { defineMigration } from './dialect.js';

export default defineMigration(
  '0010_webhook_egress',
  (d) => `
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN previous_secret_expires_at ${d.time};
ALTER TABLE webhook_endpoints ADD COLUMN failing_since ${d.time};
ALTER TABLE webhook_endpoints ADD COLUMN disabled_at ${d.time};
CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries (claimed_until_ms);
`,
);
