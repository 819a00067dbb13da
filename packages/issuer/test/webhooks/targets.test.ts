/**
 * F13: which addresses and hosts webhooks may target. Every class of address (loopback, private,
 * link-local, unspecified, metadata, and the IPv6 forms that carry an IPv4 address), the loopback rule
 * (allowed only while the issuer's base URL is on loopback, or when listed), and the allow-list
 * (addresses, CIDR ranges, exact host names; never a metadata address). Pure functions: no network.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress, createTargetPolicy, isLoopbackHost } from '../../src/webhooks/targets.js';

const PUBLIC_BASE = 'https://id.example.com';

describe('F13: address classes', () => {
  it.each([
    ['93.184.215.14', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'internal'],
    ['172.16.5.4', 'internal'],
    ['172.31.255.255', 'internal'],
    ['192.168.1.1', 'internal'],
    ['100.64.0.1', 'internal'],
    ['169.254.1.1', 'internal'],
    ['fc00::1', 'internal'],
    ['fd12:3456::1', 'internal'],
    ['fe80::1', 'internal'],
    ['192.0.2.10', 'internal'],
    ['0.0.0.0', 'forbidden'],
    ['0.1.2.3', 'forbidden'],
    ['::', 'forbidden'],
    ['255.255.255.255', 'forbidden'],
    ['224.0.0.1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['169.254.169.254', 'forbidden'],
    ['169.254.170.2', 'forbidden'],
    ['100.100.100.200', 'forbidden'],
    ['168.63.129.16', 'forbidden'],
    ['fd00:ec2::254', 'forbidden'],
    ['not-an-address', 'forbidden'],
    ['0x7f.1', 'forbidden'],
  ])('F13: %s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'internal'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['::ffff:0.0.0.0', 'forbidden'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'internal'],
    ['64:ff9b::a9fe:a9fe', 'forbidden'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::808:808', 'public'],
    ['2002:a9fe:a9fe::1', 'forbidden'],
    ['2002:c0a8:0101::1', 'internal'],
    ['::ffff:0:a00:1', 'internal'],
  ])('F13: the IPv6 form %s of an IPv4 address is classified as that address (%s)', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });
});

describe('F13: the target policy', () => {
  it('F13: a public issuer refuses loopback, private, link-local, unspecified, mapped and metadata literals at registration', () => {
    const policy = createTargetPolicy({ baseUrl: PUBLIC_BASE, allowedPrivateTargets: [] });
    expect(policy.loopbackAllowed).toBe(false);
    expect(policy.checkHost('93.184.215.14')).toBeUndefined();
    expect(policy.checkHost('hooks.example.com')).toBeUndefined();
    expect(policy.checkHost('127.0.0.1')).toBe('loopback_address');
    expect(policy.checkHost('[::1]')).toBe('loopback_address');
    expect(policy.checkHost('[::ffff:7f00:1]')).toBe('loopback_address');
    expect(policy.checkHost('localhost')).toBe('loopback_address');
    expect(policy.checkHost('api.localhost')).toBe('loopback_address');
    expect(policy.checkHost('10.0.0.5')).toBe('private_address');
    expect(policy.checkHost('[fe80::1]')).toBe('private_address');
    expect(policy.checkHost('[::ffff:a00:5]')).toBe('private_address');
    expect(policy.checkHost('169.254.169.254')).toBe('forbidden_address');
    expect(policy.checkHost('0.0.0.0')).toBe('forbidden_address');
    expect(policy.checkHost('[::]')).toBe('forbidden_address');
  });

  it('F13: plainly internal names are refused at registration; other names wait for delivery', () => {
    const policy = createTargetPolicy({ baseUrl: PUBLIC_BASE, allowedPrivateTargets: [] });
    for (const host of ['intranet', 'metadata', 'metadata.google.internal', 'printer.local', 'nas.home.arpa'])
      expect(policy.checkHost(host), host).toBe('internal_name');
    expect(policy.checkHost('hooks.example.com.')).toBeUndefined();
  });

  it('F13: a name is checked on every address it resolves to at delivery', () => {
    const policy = createTargetPolicy({ baseUrl: PUBLIC_BASE, allowedPrivateTargets: [] });
    expect(policy.checkAddress('hooks.example.com', '93.184.215.14')).toBeUndefined();
    expect(policy.checkAddress('hooks.example.com', '10.0.0.1')).toBe('private_address');
    expect(policy.checkAddress('hooks.example.com', '169.254.169.254')).toBe('forbidden_address');
    expect(policy.checkAddress('hooks.example.com', '::ffff:127.0.0.1')).toBe('loopback_address');
  });

  it('F13: loopback is allowed while the base URL is on loopback (development), private addresses still not', () => {
    for (const baseUrl of ['http://127.0.0.1:3001', 'http://localhost:3001', 'http://[::1]:3001']) {
      const policy = createTargetPolicy({ baseUrl, allowedPrivateTargets: [] });
      expect(policy.loopbackAllowed, baseUrl).toBe(true);
      expect(policy.checkHost('127.0.0.1')).toBeUndefined();
      expect(policy.checkHost('localhost')).toBeUndefined();
      expect(policy.checkAddress('hooks.test', '::ffff:127.0.0.1')).toBeUndefined();
      expect(policy.checkHost('10.0.0.5')).toBe('private_address');
      expect(policy.checkHost('169.254.169.254')).toBe('forbidden_address');
    }
  });

  it('F13: the allow-list opens listed addresses, ranges and exact names — never a metadata address', () => {
    const policy = createTargetPolicy({
      baseUrl: PUBLIC_BASE,
      allowedPrivateTargets: ['10.20.0.0/16', '127.0.0.1', 'fd00:1::/32', 'siem.corp', '169.254.0.0/16'],
    });
    expect(policy.checkHost('10.20.3.4')).toBeUndefined();
    expect(policy.checkHost('[::ffff:a14:304]')).toBeUndefined();
    expect(policy.checkHost('10.21.0.1')).toBe('private_address');
    expect(policy.checkHost('127.0.0.1')).toBeUndefined();
    expect(policy.checkHost('127.0.0.2')).toBe('loopback_address');
    expect(policy.checkHost('[fd00:1::5]')).toBeUndefined();
    expect(policy.checkHost('siem.corp')).toBeUndefined();
    expect(policy.checkHost('SIEM.corp.')).toBeUndefined();
    expect(policy.checkHost('other.corp')).toBe('internal_name');
    // A listed name may resolve to private addresses; a metadata address stays refused.
    expect(policy.checkAddress('siem.corp', '192.168.7.7')).toBeUndefined();
    expect(policy.checkAddress('siem.corp', '169.254.169.254')).toBe('forbidden_address');
    expect(policy.checkHost('169.254.1.1')).toBeUndefined();
    expect(policy.checkHost('169.254.169.254')).toBe('forbidden_address');
  });

  it('isLoopbackHost: loopback literals and localhost names', () => {
    for (const host of ['127.0.0.1', '[::1]', 'localhost', 'a.localhost', '[::ffff:7f00:1]'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['10.0.0.1', 'example.com', 'localhost.example.com'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
