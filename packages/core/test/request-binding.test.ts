/**
 * request-binding.ts: the URL a DPoP proof's `htu` must name, and the `origin` option it starts from.
 */
import { describe, expect, it } from 'vitest';
import { requestUrl } from '../src/index.js';
import { publicOrigin } from '../src/request-binding.js';

describe('publicOrigin', () => {
  it('normalizes an http(s) origin (case, default port, trailing slash) and leaves no option unset', () => {
    expect(publicOrigin(undefined)).toBeUndefined();
    expect(publicOrigin('HTTPS://API.Example.com:443/')).toBe('https://api.example.com');
    expect(publicOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });

  it.each([
    'api.example.com',
    'https://api.example.com/orders',
    'https://api.example.com?x',
    'https://api.example.com#',
    'ftp://api.example.com',
    'https://user:pw@api.example.com',
    42,
  ])('refuses %j with a TypeError naming the option', (value) => {
    expect(() => publicOrigin(value)).toThrow(TypeError);
    expect(() => publicOrigin(value)).toThrow(/"origin" option must be an absolute http\(s\) origin/);
  });
});

describe('requestUrl', () => {
  it('builds the URL DPoP proofs name: origin or scheme + host, then path and query of the target', () => {
    expect(requestUrl(undefined, 'https', 'api.example.com', '/orders?page=2')).toBe(
      'https://api.example.com/orders?page=2',
    );
    expect(requestUrl('https://api.example.com', 'http', '10.0.0.7:8080', '/orders')).toBe(
      'https://api.example.com/orders',
    );
    expect(requestUrl(undefined, 'http', '127.0.0.1:3000', 'http://127.0.0.1:3000/me?x=1')).toBe(
      'http://127.0.0.1:3000/me?x=1',
    );
    expect(requestUrl('https://api.example.com', 'http', 'x', 'http://evil.test/me')).toBe(
      'https://api.example.com/me',
    );
  });

  it('has no URL without a host, or for a target that is neither a path nor an http(s) URL', () => {
    expect(requestUrl(undefined, 'http', undefined, '/me')).toBeUndefined();
    expect(requestUrl(undefined, 'http', '', '/me')).toBeUndefined();
    expect(requestUrl(undefined, 'http', 'api', '*')).toBeUndefined();
    expect(requestUrl(undefined, 'http', 'api', 'ftp://api/me')).toBeUndefined();
  });
});
