import { describe, expect, it } from 'vitest';
import { createAuthInfo } from '../src/auth-info.js';
import { toAuditRecord } from '../src/index.js';

const token = 'header.payload.signature-secret';
const info = createAuthInfo(
  token,
  {
    sub: 'customer-1',
    client_id: 'console',
    jti: 'j-1',
    scope: 'read:orders',
    act: { sub: 'support-7' },
    exp: 2_000_000_000,
  },
  {
    issuer: 'https://id.test/oidc',
    audience: ['https://api.test'],
    exp: 2_000_000_000,
    actor: { sub: 'support-7', act: { sub: 'admin-1' } },
    validUntil: 2_000_000_005,
  },
);

describe('toAuditRecord', () => {
  it('summarizes subject, actor chain, client, jti, issuer, audience and scopes', () => {
    expect(toAuditRecord(info)).toEqual({
      subject: 'customer-1',
      actor: 'support-7',
      actorChain: ['support-7', 'admin-1'],
      delegated: true,
      clientId: 'console',
      jti: 'j-1',
      issuer: 'https://id.test/oidc',
      audience: ['https://api.test'],
      scopes: ['read:orders'],
      expiresAt: new Date(2_000_000_000_000).toISOString(),
    });
  });

  it('never contains the token', () => {
    expect(JSON.stringify(toAuditRecord(info))).not.toContain('signature-secret');
  });

  it('uses null for missing values', () => {
    const bare = createAuthInfo(
      token,
      { exp: 2_000_000_000 },
      {
        issuer: 'i',
        audience: ['a'],
        exp: 2_000_000_000,
        actor: undefined,
        validUntil: 0,
      },
    );
    expect(toAuditRecord(bare)).toMatchObject({
      subject: null,
      actor: null,
      actorChain: [],
      clientId: null,
      jti: null,
      delegated: false,
    });
  });
});
