/** Values from outside made safe for a log line (src/internal/printable.ts). */
import { describe, expect, it } from 'vitest';
import { printable } from '../../src/internal/printable.js';

describe('printable', () => {
  it('keeps printable ASCII as it is', () => {
    expect(printable('https://api.example.com/orders?x="1"')).toBe('https://api.example.com/orders?x="1"');
  });

  it('turns line breaks, escape sequences and non-ASCII characters into "?"', () => {
    expect(printable('a\r\nb\u001b[31mc\u00e9\u2028d')).toBe('a??b?[31mc??d');
  });

  it('cuts a value longer than the limit and marks the cut', () => {
    expect(printable('x'.repeat(201))).toBe(`${'x'.repeat(200)}…`);
    expect(printable('x'.repeat(200))).toBe('x'.repeat(200));
    expect(printable('abcdef', 3)).toBe('abc…');
  });
});
