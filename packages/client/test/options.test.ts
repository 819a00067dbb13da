/** resolveOptions(): defaults, the issuer/endpoint rule, the plain-HTTP policy, and TypeErrors naming the option. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ClientOptions,
  createClient,
  createMemoryStorage,
  DEFAULTS,
  resolveOptions,
} from '../src/index.js';

const BASE: ClientOptions = {
  issuer: 'https://id.example.com/oidc',
  clientId: 'console',
  redirectUri: 'https://console.example.com/callback',
  resources: ['https://orders.example.com', 'https://billing.example.com/api'],
  scopes: ['read:orders'],
};

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('DEFAULTS', () => {
  it('is frozen, deeply', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(Object.isFrozen(DEFAULTS.baseScopes)).toBe(true);
  });
});

describe('resolveOptions', () => {
  it('applies the defaults', () => {
    const resolved = resolveOptions(BASE);
    expect(resolved.issuer.href).toBe('https://id.example.com/oidc');
    expect(resolved.scope).toBe('openid offline_access read:orders');
    expect(resolved.insecure).toBe('never');
    expect(resolved.timeout).toBe(DEFAULTS.timeout);
    expect(resolved.expiryLeeway).toBe(DEFAULTS.expiryLeeway);
    expect(resolved.clientSecret).toBeUndefined();
    expect(resolved.keyPrefix).toBe('gatehouse:console:');
    expect(resolved.storageKind).toBe('memory');
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.resources)).toBe(true);
  });

  it('derives the issuer from a Gatehouse endpoint', () => {
    expect(
      resolveOptions({ ...BASE, issuer: undefined, endpoint: 'https://id.example.com' }).issuer.href,
    ).toBe('https://id.example.com/oidc');
    expect(
      resolveOptions({ ...BASE, issuer: undefined, endpoint: 'https://example.com/auth/' }).issuer.href,
    ).toBe('https://example.com/auth/oidc');
    expect(resolveOptions({ ...BASE, issuer: new URL('https://id.example.com/oidc') }).issuer.href).toBe(
      'https://id.example.com/oidc',
    );
  });

  it('deduplicates scopes and keeps openid and offline_access once', () => {
    const resolved = resolveOptions({ ...BASE, scopes: ['openid', 'read:orders', 'read:orders', 'profile'] });
    expect(resolved.scope).toBe('openid offline_access read:orders profile');
    expect(resolved.scopes).toEqual(['openid', 'read:orders', 'profile']);
  });

  it('accepts an empty resource list (sign-in only)', () => {
    expect(resolveOptions({ ...BASE, resources: [] }).resources).toEqual([]);
  });

  describe('allowInsecureRequests', () => {
    const http = { ...BASE, issuer: 'http://127.0.0.1:3001/oidc' };
    it('refuses http: by default', () => {
      expect(() => resolveOptions(http)).toThrow(/"issuer" option must use https:/);
    });
    it('true allows http: for loopback hosts only', () => {
      expect(resolveOptions({ ...http, allowInsecureRequests: true }).insecure).toBe('loopback');
      for (const host of ['localhost:3001', '127.8.9.10', '[::1]:3001'])
        expect(() =>
          resolveOptions({ ...BASE, issuer: `http://${host}/oidc`, allowInsecureRequests: true }),
        ).not.toThrow();
      expect(() =>
        resolveOptions({ ...BASE, issuer: 'http://id.example.com/oidc', allowInsecureRequests: true }),
      ).toThrow(/only allows http: for loopback hosts/);
    });
    it("'force' allows http: everywhere", () => {
      expect(
        resolveOptions({ ...BASE, issuer: 'http://id.example.com/oidc', allowInsecureRequests: 'force' })
          .insecure,
      ).toBe('always');
    });
  });

  describe('storage', () => {
    it('is a private memory store by default, one per client', () => {
      const a = resolveOptions(BASE).storage;
      const b = resolveOptions(BASE).storage;
      a.setItem('k', 'v');
      expect(b.getItem('k')).toBeNull();
    });
    it('uses the page sessionStorage when chosen', () => {
      const sessionStorage = createMemoryStorage();
      vi.stubGlobal('sessionStorage', sessionStorage);
      const resolved = resolveOptions({ ...BASE, storage: 'sessionStorage' });
      expect(resolved.storage).toBe(sessionStorage);
      expect(resolved.storageKind).toBe('sessionStorage');
    });
    it("refuses 'sessionStorage' where there is none", () => {
      vi.stubGlobal('sessionStorage', undefined);
      expect(() => resolveOptions({ ...BASE, storage: 'sessionStorage' })).toThrow(
        /"storage" option is 'sessionStorage' but no sessionStorage is available here/,
      );
    });
    it('takes a custom store', () => {
      const storage = createMemoryStorage();
      expect(resolveOptions({ ...BASE, storage }).storage).toBe(storage);
      expect(resolveOptions({ ...BASE, storage }).storageKind).toBe('custom');
    });
    it('never touches localStorage', () => {
      const localStorage = { getItem: vi.fn(), setItem: vi.fn(), removeItem: vi.fn() };
      vi.stubGlobal('localStorage', localStorage);
      resolveOptions(BASE);
      vi.stubGlobal('sessionStorage', createMemoryStorage());
      resolveOptions({ ...BASE, storage: 'sessionStorage' });
      expect(localStorage.getItem).not.toHaveBeenCalled();
      expect(localStorage.setItem).not.toHaveBeenCalled();
    });
  });

  it('refuses clientSecret in a browser page', () => {
    expect(resolveOptions({ ...BASE, clientSecret: 's3cret' }).clientSecret).toBe('s3cret');
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
    expect(() => resolveOptions({ ...BASE, clientSecret: 's3cret' })).toThrow(
      /"clientSecret" option must not be used in a browser/,
    );
  });

  it.each<[string, Partial<Record<keyof ClientOptions, unknown>>, RegExp]>([
    ['no issuer', { issuer: undefined }, /"endpoint" option is required/],
    ['both', { endpoint: 'https://id.example.com' }, /"issuer" option cannot be combined with "endpoint"/],
    ['relative issuer', { issuer: '/oidc' }, /"issuer" option must be an absolute URL/],
    ['issuer query', { issuer: 'https://id.example.com/oidc?x=1' }, /"issuer" option must not have a query/],
    [
      'issuer fragment',
      { issuer: 'https://id.example.com/oidc#x' },
      /"issuer" option must not have a fragment/,
    ],
    ['issuer scheme', { issuer: 'ftp://id.example.com/oidc' }, /"issuer" option must use https:/],
    ['issuer type', { issuer: 42 }, /"issuer" option must be a string or a URL/],
    [
      'insecure',
      { allowInsecureRequests: 'yes' },
      /"allowInsecureRequests" option must be true, false or 'force'/,
    ],
    ['clientId', { clientId: '' }, /"clientId" option must be a non-empty string/],
    ['clientSecret', { clientSecret: '' }, /"clientSecret" option must be a non-empty string/],
    ['redirectUri', { redirectUri: 'callback' }, /"redirectUri" option must be an absolute URL/],
    [
      'redirectUri fragment',
      { redirectUri: 'https://a.example/cb#x' },
      /"redirectUri" option must not have a fragment/,
    ],
    [
      'postLogout',
      { postLogoutRedirectUri: 'nope' },
      /"postLogoutRedirectUri" option must be an absolute URL/,
    ],
    ['resources type', { resources: 'https://orders.example.com' }, /"resources" option must be an array/],
    ['resource relative', { resources: ['/orders'] }, /"resources\[0\]" option must be an absolute URL/],
    [
      'resource fragment',
      { resources: ['https://a.example/#f'] },
      /"resources\[0\]" option must not have a fragment/,
    ],
    [
      'resource scheme',
      { resources: ['urn:example:api'] },
      /"resources\[0\]" option must be an http\(s\) URL/,
    ],
    [
      'resource twice',
      { resources: ['https://a.example', 'https://a.example'] },
      /"resources\[1\]" option is listed twice/,
    ],
    ['resource type', { resources: [1] }, /"resources\[0\]" option must be a string/],
    ['scopes type', { scopes: 'read:orders' }, /"scopes" option must be an array/],
    ['scope space', { scopes: ['read orders'] }, /"scopes\[0\]" option must be a scope name/],
    ['scope quote', { scopes: ['a"b'] }, /"scopes\[0\]" option must be a scope name/],
    [
      'storage',
      { storage: 'localStorage' },
      /"storage" option must be 'memory', 'sessionStorage' or an object/,
    ],
    ['storage object', { storage: { getItem() {} } }, /"storage" option must be/],
    ['timeout', { timeout: 0 }, /"timeout" option must be an integer from 1 to 600000/],
    ['timeout type', { timeout: '5s' }, /"timeout" option must be an integer/],
    ['leeway', { expiryLeeway: 301 }, /"expiryLeeway" option must be an integer from 0 to 300/],
    ['leeway negative', { expiryLeeway: -1 }, /"expiryLeeway" option/],
    ['fetch', { fetch: 'global' }, /"fetch" option must be a function/],
  ])('throws a TypeError for %s', (_label, patch, message) => {
    const options = { ...BASE, ...patch } as ClientOptions;
    expect(() => resolveOptions(options)).toThrow(TypeError);
    expect(() => resolveOptions(options)).toThrow(message);
    // createClient validates at construction, before any request.
    expect(() => createClient(options)).toThrow(message);
  });

  it('refuses a non-object', () => {
    expect(() => resolveOptions(undefined as never)).toThrow(TypeError);
  });
});
