/** Loopback detection and the plain-HTTP policy. */
import { describe, expect, it } from 'vitest';
import { insecureAllowed, isLoopback, parseUrl } from '../../src/internal/url.js';

describe('isLoopback', () => {
  it.each([
    'http://localhost:1/',
    'http://LOCALHOST/',
    'http://127.0.0.1/',
    'http://127.255.0.9/',
    'http://[::1]:80/',
  ])('%s is loopback', (url) => expect(isLoopback(new URL(url))).toBe(true));
  it.each([
    'http://localhost.evil.com/',
    'http://127.0.0.1.nip.io/',
    'http://10.0.0.1/',
    'http://[::2]/',
    'http://example.com/',
  ])('%s is not', (url) => expect(isLoopback(new URL(url))).toBe(false));
});

describe('insecureAllowed', () => {
  it('never flags https', () => {
    expect(insecureAllowed(new URL('https://127.0.0.1/'), 'always')).toBe(false);
  });
  it('follows the policy for http', () => {
    const local = new URL('http://127.0.0.1/token');
    const remote = new URL('http://id.example.com/token');
    expect(insecureAllowed(local, 'never')).toBe(false);
    expect(insecureAllowed(local, 'loopback')).toBe(true);
    expect(insecureAllowed(remote, 'loopback')).toBe(false);
    expect(insecureAllowed(remote, 'always')).toBe(true);
  });
});

describe('parseUrl', () => {
  it('parses absolute URLs and returns null for the rest', () => {
    expect(parseUrl('https://id.example.com/oidc')?.host).toBe('id.example.com');
    expect(parseUrl('/callback')).toBeNull();
    expect(parseUrl('')).toBeNull();
  });
});
