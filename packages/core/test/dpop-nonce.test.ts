/** Stateless DPoP server nonces (src/dpop-nonce.ts). */
import { describe, expect, it } from 'vitest';
import { NonceSource } from '../src/dpop-nonce.js';

const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');

describe('NonceSource', () => {
  it('hands out one nonce per step, accepted in its step and the next, not after', () => {
    const source = new NonceSource(secret, 60);
    const t = 1_700_000_000;
    const nonce = source.current(t);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(source.current(t + 1)).toBe(
      Math.floor((t + 1) / 60) === Math.floor(t / 60) ? nonce : source.current(t + 1),
    );
    const stepEnd = (Math.floor(t / 60) + 1) * 60;
    expect(source.accepts(nonce, stepEnd - 1)).toBe(true);
    expect(source.accepts(nonce, stepEnd + 59)).toBe(true);
    expect(source.accepts(nonce, stepEnd + 60)).toBe(false);
    expect(source.current(stepEnd)).not.toBe(nonce);
  });

  it('instances with the same secret accept each other’s nonces; another secret does not', () => {
    const t = 1_700_000_123;
    const a = new NonceSource(secret, 300);
    const b = new NonceSource(Uint8Array.from(secret), 300);
    const c = new NonceSource(new TextEncoder().encode('another secret of thirty-two b!!'), 300);
    expect(b.accepts(a.current(t), t)).toBe(true);
    expect(c.accepts(a.current(t), t)).toBe(false);
  });

  it('refuses forged, truncated, non-string nonces, and a future step', () => {
    const source = new NonceSource(secret, 300);
    const t = 1_700_000_000;
    const nonce = source.current(t);
    const flipped = `${nonce.slice(0, -1)}${nonce.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [
      flipped,
      nonce.slice(0, -2),
      '',
      42,
      undefined,
      null,
      new NonceSource(secret, 300).current(t + 600),
    ])
      expect(source.accepts(bad, t)).toBe(false);
  });
});
