import { describe, expect, it } from 'vitest';
import { defaultPolicy, parseImpersonationRequest, REQUEST_LIMITS } from '../src/policy.ts';

const VALID = { userId: 'usr_alice', reason: '  cannot see an order ', ticketId: 'SUP-1234' };

describe('parseImpersonationRequest', () => {
  it('accepts exactly { userId, reason, ticketId } and trims the reason', () => {
    expect(parseImpersonationRequest(VALID)).toEqual({
      ok: true,
      value: { userId: 'usr_alice', reason: 'cannot see an order', ticketId: 'SUP-1234' },
    });
  });

  it.each([
    ['null', null],
    ['a string', 'usr_alice'],
    ['an array', [VALID]],
    ['an unknown field', { ...VALID, applicationId: 'other-app' }],
    ['an empty user id', { ...VALID, userId: '' }],
    ['a numeric user id', { ...VALID, userId: 42 }],
    ['a user id that is too long', { ...VALID, userId: 'u'.repeat(REQUEST_LIMITS.userIdMaxLength + 1) }],
    ['a blank reason', { ...VALID, reason: '   ' }],
    ['a reason that is too long', { ...VALID, reason: 'r'.repeat(REQUEST_LIMITS.reasonMaxLength + 1) }],
    ['a lower-case ticket', { ...VALID, ticketId: 'sup-1234' }],
    ['a ticket with spaces', { ...VALID, ticketId: 'SUP 1234' }],
  ])('refuses %s, without echoing the input', (_name, body) => {
    const result = parseImpersonationRequest(body);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).not.toMatch(/usr_alice|other-app|rrrr|uuuu/);
  });
});

describe('defaultPolicy', () => {
  const ask = { reason: 'x', ticketId: 'SUP-1' };

  it('allows an engineer to impersonate another user', async () => {
    expect(await defaultPolicy()({ ...ask, engineerId: 'usr_sam', userId: 'usr_alice' })).toEqual({
      allow: true,
    });
  });

  it('refuses impersonating yourself', async () => {
    expect(await defaultPolicy()({ ...ask, engineerId: 'usr_sam', userId: 'usr_sam' })).toEqual({
      allow: false,
      reason: 'you cannot impersonate yourself',
    });
  });

  it('refuses protected accounts', async () => {
    const policy = defaultPolicy({ protectedUserIds: ['usr_admin'] });
    expect(await policy({ ...ask, engineerId: 'usr_sam', userId: 'usr_admin' })).toMatchObject({
      allow: false,
    });
    expect(await policy({ ...ask, engineerId: 'usr_sam', userId: 'usr_alice' })).toEqual({ allow: true });
  });
});
