import { describe, expect, it } from 'vitest';
import {
  createVerifier,
  ADAPTER_DEFAULTS as DEFAULTS,
  resolveAdapterOptions as resolveAuthOptions,
  resolveScopeRequirement as resolveScopeOptions,
} from '../src/index.js';

const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };

describe('ADAPTER_DEFAULTS', () => {
  it('is frozen and protective by default', () => {
    expect(Object.isFrozen(DEFAULTS)).toBe(true);
    expect(DEFAULTS).toEqual({
      optional: false,
      allowDelegation: true,
      handleErrors: true,
      mode: 'all',
      warmUp: false,
    });
  });
});

describe('resolveAdapterOptions', () => {
  it('applies the defaults and creates a verifier', () => {
    const resolved = resolveAuthOptions(base);
    expect(resolved).toMatchObject({
      optional: false,
      allowDelegation: true,
      handleErrors: true,
      metadata: undefined,
    });
    expect(resolved.verifier.options.audiences).toEqual([base.audience]);
  });

  it('passes every form of the issuer option (list with overrides, function) and issuerCache through', () => {
    const list = resolveAuthOptions({
      ...base,
      issuer: [base.issuer, { issuer: 'https://id2.example.com', audience: 'https://api2.example.com' }],
      resourceMetadata: { scopesSupported: ['read'] },
    });
    expect(list.verifier.options.issuers).toEqual([base.issuer, 'https://id2.example.com']);
    expect(list.metadata?.document.authorization_servers).toEqual([base.issuer, 'https://id2.example.com']);
    const tenants = resolveAuthOptions({ ...base, issuer: () => true, issuerCache: { max: 10 } });
    expect(tenants.verifier.options.issuerCache.max).toBe(10);
    expect(() => resolveAuthOptions({ ...base, issuer: () => true, issuerCach: {} } as never)).toThrow(
      'did you mean "issuerCache"',
    );
    // RFC 9728 metadata must then name its authorization servers itself.
    expect(() => resolveAuthOptions({ ...base, issuer: () => true, resourceMetadata: {} })).toThrow(
      '"resourceMetadata.authorizationServers" option must name at least one authorization server',
    );
  });

  it('normalizes the public origin (case, default port, trailing slash)', () => {
    expect(resolveAuthOptions(base).origin).toBeUndefined();
    expect(resolveAuthOptions({ ...base, origin: 'HTTPS://API.Example.com:443/' }).origin).toBe(
      'https://api.example.com',
    );
    expect(resolveAuthOptions({ ...base, origin: 'http://127.0.0.1:8080' }).origin).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it('adopts a shared verifier', () => {
    const verifier = createVerifier(base);
    expect(resolveAuthOptions({ verifier, optional: true }).verifier).toBe(verifier);
  });

  it.each([
    [{ optional: 'yes' }, '"optional" option must be a boolean'],
    [{ allowDelegation: 'false' }, '"allowDelegation" option must be a boolean'],
    [{ handleErrors: 1 }, '"handleErrors" option must be a boolean'],
    [{ clockTolerance: -1 }, '"clockTolerance" option'],
    [{ resourceMetadata: { resource: 'ftp://x' } }, '"resourceMetadata.resource" option'],
    [{ origin: 'api.example.com' }, '"origin" option must be an absolute http(s) origin'],
    [{ origin: 'https://api.example.com/orders' }, '"origin" option must be an absolute http(s) origin'],
    [{ origin: 'https://api.example.com?x' }, '"origin" option'],
    [{ origin: 'ftp://api.example.com' }, '"origin" option'],
    [{ origin: 'https://user:pw@api.example.com' }, '"origin" option'],
    [{ origin: 42 }, '"origin" option'],
  ])('throws a TypeError naming the option for %j', (extra, message) => {
    expect(() => resolveAuthOptions({ ...base, ...extra } as never)).toThrow(TypeError);
    expect(() => resolveAuthOptions({ ...base, ...extra } as never)).toThrow(message);
  });

  it('refuses a shared verifier mixed with verifier options', () => {
    const verifier = createVerifier(base);
    expect(() => resolveAuthOptions({ verifier, issuer: base.issuer } as never)).toThrow(
      /"verifier" option cannot be combined/,
    );
  });
});

describe('resolveScopeRequirement', () => {
  it('normalizes scopes and mode', () => {
    expect(resolveScopeOptions('a b')).toEqual({
      scopes: ['a', 'b'],
      scopeMode: 'all',
      allowDelegation: true,
    });
    expect(resolveScopeOptions(['a'], { mode: 'any', allowDelegation: false })).toEqual({
      scopes: ['a'],
      scopeMode: 'any',
      allowDelegation: false,
    });
  });

  it.each([
    [undefined, undefined, /"scopes" must be/],
    [['a b'], undefined, /scopes must be/],
    [42, undefined, /scopes must be/],
    ['a', { mode: 'some' }, /"mode" option must be "all" or "any"/],
    ['a', { allowDelegation: 0 }, /"allowDelegation" option must be a boolean/],
    ['a', 'any', /requireScope options must be an object/],
  ])('throws a TypeError for scopes %j with options %j', (scopes, options, message) => {
    expect(() => resolveScopeOptions(scopes as never, options as never)).toThrow(message);
  });
});
