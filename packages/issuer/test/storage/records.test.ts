/**
 * The type lists of storage/records.ts and storage/audit-records.ts (and the webhook list built on
 * them): each names a type once, since a list with a repeat would offer it twice to `z.enum`, the
 * console and the reference docs, and every type a webhook can subscribe to is an audit event type,
 * since deliveries are queued from audit events.
 */
import { describe, expect, it } from 'vitest';
import {
  APPLICATION_TYPES,
  AUDIT_EVENT_TYPES,
  MANAGEMENT_EVENT_TYPES,
  ROLE_TYPES,
  WEBHOOK_EVENT_TYPES,
} from '../../src/index.js';

const repeats = (list: readonly string[]): string[] => list.filter((item, i) => list.indexOf(item) !== i);

describe.each([
  ['AUDIT_EVENT_TYPES', AUDIT_EVENT_TYPES],
  ['MANAGEMENT_EVENT_TYPES', MANAGEMENT_EVENT_TYPES],
  ['WEBHOOK_EVENT_TYPES', WEBHOOK_EVENT_TYPES],
  ['APPLICATION_TYPES', APPLICATION_TYPES],
  ['ROLE_TYPES', ROLE_TYPES],
] as const)('%s', (_name, list: readonly string[]) => {
  it('names each type once, and is frozen', () => {
    expect(list.length).toBeGreaterThan(0);
    expect(repeats(list)).toEqual([]);
    expect(Object.isFrozen(list)).toBe(true);
  });
});

describe('AUDIT_EVENT_TYPES', () => {
  it('holds every Management API change, impersonation.ended once, and every webhook event type', () => {
    expect(AUDIT_EVENT_TYPES).toEqual(expect.arrayContaining([...MANAGEMENT_EVENT_TYPES]));
    expect(AUDIT_EVENT_TYPES.filter((type) => type === 'impersonation.ended')).toHaveLength(1);
    expect(
      WEBHOOK_EVENT_TYPES.filter((type) => !(AUDIT_EVENT_TYPES as readonly string[]).includes(type)),
    ).toEqual([]);
  });
});
