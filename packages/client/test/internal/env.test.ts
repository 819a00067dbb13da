/** Browser detection, sessionStorage lookup, current URL and navigation. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentUrl, isBrowser, navigate, pageSessionStorage } from '../../src/internal/env.js';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('env', () => {
  it('sees no browser in Node', () => {
    expect(isBrowser()).toBe(false);
    expect(currentUrl()).toBeUndefined();
    expect(navigate(new URL('https://id.example.com/'))).toBe(false);
  });

  it('sees a page with window, document and location', () => {
    const assign = vi.fn();
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    vi.stubGlobal('location', { href: 'https://app.example.com/cb?code=1', assign });
    expect(isBrowser()).toBe(true);
    expect(currentUrl()).toBe('https://app.example.com/cb?code=1');
    expect(navigate(new URL('https://id.example.com/auth'))).toBe(true);
    expect(assign).toHaveBeenCalledExactlyOnceWith('https://id.example.com/auth');
  });

  it('finds sessionStorage, and survives a browser that blocks it', () => {
    const storage = { getItem() {}, setItem() {}, removeItem() {} };
    vi.stubGlobal('sessionStorage', storage);
    expect(pageSessionStorage()).toBe(storage);
    Object.defineProperty(globalThis, 'sessionStorage', {
      configurable: true,
      get() {
        throw new Error('SecurityError');
      },
    });
    try {
      expect(pageSessionStorage()).toBeUndefined();
    } finally {
      Reflect.deleteProperty(globalThis, 'sessionStorage');
    }
  });
});
