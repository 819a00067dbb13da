/**
 * The activity page's words, run in Node (src/events.ts): every Management API change type has
 * a view and a sentence naming what it acted on (F21 "visible in the console's activity"), and refused
 * exchanges and sign-ins are sentences, not codes (issue #29 item 8).
 */

import { MANAGEMENT_EVENT_TYPES } from '@gatehouse/issuer';
import { describe, expect, it } from 'vitest';
import {
  type AuditEvent,
  describeChange,
  exchangeRefusal,
  signInRefusal,
  VIEW_TYPES,
} from '../src/events.js';

const event = (type: string, details: Record<string, unknown>, userId: string | null = null): AuditEvent => ({
  id: 'evt_1',
  type,
  createdAt: '2026-01-01T00:00:00.000Z',
  applicationId: 'gatehouse-console',
  userId,
  actorId: 'usr_root',
  reason: null,
  details,
});

describe('the activity page’s views and sentences', () => {
  it('F21: every Management API change type is in the Administration view, with a sentence', () => {
    for (const type of MANAGEMENT_EVENT_TYPES) {
      expect(VIEW_TYPES.administration, type).toHaveProperty([type]);
      expect(describeChange(event(type, { targets: { id: 'x_1' } })), type).toBeDefined();
    }
    expect(describeChange(event('token_exchange.succeeded', {}))).toBeUndefined();
  });

  it('F21: a sentence names what the change acted on by reference', () => {
    expect(
      describeChange(event('user.roles_assigned', { targets: { id: 'usr_1', roleIds: ['rol_1', 'rol_2'] } })),
    ).toEqual([
      'Gave ',
      { kind: 'user', id: 'usr_1' },
      ' the roles ',
      [
        { kind: 'role', id: 'rol_1' },
        { kind: 'role', id: 'rol_2' },
      ],
    ]);
    expect(describeChange(event('user.created', { targets: {} }, 'usr_9'))).toEqual([
      'Created the user ',
      { kind: 'user', id: 'usr_9' },
    ]);
    expect(
      describeChange(event('user.suspension_set', { targets: { id: 'usr_1' }, suspended: true })),
    ).toEqual(['Disabled the user ', { kind: 'user', id: 'usr_1' }]);
    expect(describeChange(event('scope.created', { targets: { id: 'res_1', scopeId: 'scp_1' } }))).toEqual([
      'Created the scope ',
      { kind: 'scope', id: 'scp_1', resourceId: 'res_1' },
      ' of ',
      { kind: 'resource', id: 'res_1' },
    ]);
    expect(describeChange(event('signing_key.rotated', { targets: { kid: 'k1' } }))).toEqual([
      'Rotated the signing key; the new key is ',
      { kind: 'key', id: 'k1' },
    ]);
  });

  it('#29 item 8: a refused exchange or sign-in is a sentence, not a code', () => {
    expect(exchangeRefusal('subject_token_consumed')).toBe(
      'The subject token had been used already: each one is exchanged once.',
    );
    expect(exchangeRefusal('some_new_reason', 'the thing went wrong')).toBe('The thing went wrong.');
    expect(exchangeRefusal('some_new_reason')).toBe('Some new reason.');
    expect(signInRefusal({ type: 'sign_in.failed', reason: 'invalid_credentials' })).toBe(
      'The username, email or password was wrong.',
    );
    expect(signInRefusal({ type: 'sign_in.locked', reason: 'address' })).toMatch(/this address/);
  });
});
