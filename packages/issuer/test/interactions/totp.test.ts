/**
 * The TOTP factor's parts (interactions/totp.ts): sealing secrets under the cookie keys (rotation,
 * tampering), codes and their time steps (RFC 6238 vectors, drift window), and the signed password step.
 */
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import {
  codeStep,
  enrolmentUri,
  newSecret,
  openSecret,
  readPasswordStep,
  sealSecret,
  signPasswordStep,
} from '../../src/interactions/totp.js';

const OLD = 'an old cookie key of at least 32 characters';
const NEW = 'a new cookie key of at least 32 characters!';

describe('sealSecret / openSecret', () => {
  it('B89: seals with the newest key, never in the clear, and opens with any configured key', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const sealed = sealSecret(secret, [OLD]);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret);
    expect(sealSecret(secret, [OLD])).not.toBe(sealed); // a fresh IV every time
    // After a rotation (new key first), secrets sealed under the old key still open.
    expect(openSecret(sealed, [NEW, OLD])).toBe(secret);
    expect(openSecret(sealSecret(secret, [NEW, OLD]), [NEW])).toBe(secret);
  });

  it('B89: a removed key, a tampered value or garbage opens nothing', () => {
    const sealed = sealSecret(newSecret(), [OLD]);
    expect(openSecret(sealed, [NEW])).toBeUndefined();
    const [v, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = `${body.slice(0, -2)}${body.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(openSecret([v, iv, flipped, tag].join('.'), [OLD])).toBeUndefined();
    expect(openSecret('v2.x.y.z', [OLD])).toBeUndefined();
    expect(openSecret('not sealed', [OLD])).toBeUndefined();
  });
});

describe('codeStep', () => {
  // RFC 6238 Appendix B, SHA-1 seed "12345678901234567890", 8 digits there; the same HMAC here gives
  // the code's last 6 digits.
  const seed = Secret.fromLatin1('12345678901234567890').base32;

  it('accepts the RFC 6238 test vectors (last 6 digits) at their times, with their step', () => {
    for (const [time, code] of [
      [59, '287082'],
      [1111111109, '081804'],
      [1234567890, '005924'],
      [2000000000, '279037'],
    ] as const) {
      expect(codeStep(seed, code, time * 1000)).toBe(Math.floor(time / DEFAULTS.totp.period));
    }
  });

  it('accepts one step either side for drift, and nothing further or malformed', () => {
    const secret = newSecret();
    const now = Date.now();
    const step = Math.floor(now / 1000 / DEFAULTS.totp.period);
    const at = (offset: number) =>
      TOTP.generate({
        secret: Secret.fromBase32(secret),
        timestamp: now + offset * DEFAULTS.totp.period * 1000,
      });
    expect(codeStep(secret, at(0), now)).toBe(step);
    expect(codeStep(secret, at(-1), now)).toBe(step - 1);
    expect(codeStep(secret, at(1), now)).toBe(step + 1);
    expect(codeStep(secret, at(3), now)).toBeUndefined();
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 12345', '１２３４５６'])
      expect(codeStep(secret, bad, now)).toBeUndefined();
  });

  it('builds the otpauth:// URI authenticator apps read', () => {
    const secret = newSecret();
    const uri = new URL(enrolmentUri(secret, 'alice', 'id.example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('issuer')).toBe('id.example.com');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
  });
});

describe('signPasswordStep / readPasswordStep', () => {
  const key = Buffer.alloc(32, 7);
  const now = 1_800_000_000;

  it('B87: proves the password step for one interaction until it expires', () => {
    const step = signPasswordStep(key, 'uid-1', 'usr_1', now + 300);
    expect(readPasswordStep(key, 'uid-1', step, now)).toBe('usr_1');
    expect(readPasswordStep(key, 'uid-1', step, now + 301)).toBeUndefined();
    expect(readPasswordStep(key, 'uid-2', step, now)).toBeUndefined();
    expect(readPasswordStep(Buffer.alloc(32, 8), 'uid-1', step, now)).toBeUndefined();
  });

  it('B87: a forged or edited value is refused', () => {
    const step = signPasswordStep(key, 'uid-1', 'usr_1', now + 300);
    const [, mac] = step.split('.');
    const other = `${Buffer.from(`usr_2.${now + 300}`).toString('base64url')}.${mac}`;
    expect(readPasswordStep(key, 'uid-1', other, now)).toBeUndefined();
    for (const bad of [undefined, '', '.', 'abc', `${step}x`])
      expect(readPasswordStep(key, 'uid-1', bad, now)).toBeUndefined();
  });
});
