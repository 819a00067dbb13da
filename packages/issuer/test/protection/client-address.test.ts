/**
 * Client addresses behind proxies: `clientAddress()` over real requests on a loopback server, and
 * X-Forwarded-For spoofing against the issuer's limiters with one trusted hop (the test plays the
 * proxy: it appends the "real" client address on the right, the attacker writes the left).
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveProtection } from '../../src/config/protection.js';
import { ConfigError } from '../../src/errors.js';
import { clientAddress } from '../../src/protection/client-address.js';
import { DRIVERS } from '../helpers/drivers.js';
import {
  ACCESS_TOKEN_TYPE,
  EXCHANGE_SECRET,
  loadExchangeWorld,
  TOKEN_EXCHANGE,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS, PASSWORD } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { openSignInForm } from '../helpers/sign-in.js';

describe('clientAddress()', () => {
  let port: number;
  let seen: (req: IncomingMessage) => string = () => '';
  const server = createServer((req, res) => res.end(seen(req)));
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** The address `clientAddress()` finds under `proxy` for a request with `forwarded` header lines. */
  function addressOf(proxy: Parameters<typeof resolveProtection>[0]['proxy'], forwarded: string[]) {
    const resolved = resolveProtection({ proxy }).proxy;
    seen = (req) => clientAddress(req, resolved);
    return new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, headers: { 'x-forwarded-for': forwarded } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk)).on('end', () => resolve(body));
      });
      req.on('error', reject).end();
    });
  }

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    expect(await addressOf(undefined, ['203.0.113.9'])).toBe('127.0.0.1');
  });

  it('reads the right end with trusted hops, whatever the client wrote on the left', async () => {
    expect(await addressOf({ hops: 1 }, ['6.6.6.6, 203.0.113.9'])).toBe('203.0.113.9');
    expect(await addressOf({ hops: 1 }, ['6.6.6.6', '203.0.113.9'])).toBe('203.0.113.9');
    expect(await addressOf({ hops: 2 }, ['6.6.6.6, 203.0.113.9, 10.0.0.5'])).toBe('203.0.113.9');
    // Fewer entries than hops: the left-most there is (what the first proxy saw).
    expect(await addressOf({ hops: 3 }, ['203.0.113.9'])).toBe('203.0.113.9');
    // A non-address the client wrote next to the trusted part: the last valid address instead.
    expect(await addressOf({ hops: 2 }, ['not-an-ip, 203.0.113.9'])).toBe('203.0.113.9');
    expect(await addressOf({ hops: 1 }, ['::ffff:198.51.100.4'])).toBe('198.51.100.4');
  });

  it('skips trusted proxy addresses and ranges from the right', async () => {
    const proxy = { addresses: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'] };
    expect(await addressOf(proxy, ['6.6.6.6, 203.0.113.9, 10.1.2.3, fd00::1'])).toBe('203.0.113.9');
    expect(await addressOf(proxy, ['10.1.2.3'])).toBe('10.1.2.3');
    // The peer is not trusted: the header is not read at all.
    expect(await addressOf({ addresses: ['10.0.0.0/8'] }, ['203.0.113.9'])).toBe('127.0.0.1');
  });

  it('refuses trustProxy: true with a message naming proxy.hops, and bad proxy addresses', () => {
    expect(() => resolveProtection({ trustProxy: true })).toThrow(ConfigError);
    expect(() => resolveProtection({ trustProxy: true })).toThrow(/"trustProxy" is replaced by "proxy.hops"/);
    expect(resolveProtection({ trustProxy: false }).proxy.hops).toBe(0);
    expect(() => resolveProtection({ proxy: { addresses: ['10.0.0.0/33'] } })).toThrow(/proxy.addresses.0/);
    expect(() => resolveProtection({ proxy: { addresses: ['proxy.local'] } })).toThrow(/proxy.addresses.0/);
    expect(() => resolveProtection({ proxy: { hops: -1 } })).toThrow(/proxy.hops/);
  });
});

describe.each(DRIVERS)('X-Forwarded-For spoofing with one trusted hop (%s)', (driver) => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer(driver, {
      proxy: { hops: 1 },
      tokenExchange: { maxFailures: 3, failureWindow: 60 },
      signIn: {
        maxFailuresPerAddress: 5,
        maxFailuresPerAccountAndAddress: 1_000,
        delayAfter: 1_000,
        delayAfterPerAddress: 1_000,
        delay: 10,
        maxDelay: 20,
      },
    });
    await loadWorld(t);
    await loadExchangeWorld(t);
  });
  afterAll(() => t.close());

  const exchangeFrom = async (forwarded: string, subjectToken: string) => {
    const res = await fetch(`${t.baseUrl}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': forwarded,
        authorization: `Basic ${Buffer.from(`te-web:${EXCHANGE_SECRET}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: TOKEN_EXCHANGE,
        subject_token: subjectToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: ORDERS,
      }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };

  it('B52: rotating left-most X-Forwarded-For values do not escape the token-exchange failure limiter', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push((await exchangeFrom(`198.18.0.${i}, 203.0.113.9`, `sub_guess_${i}`)).status);
    expect(statuses.slice(0, 3)).toEqual([400, 400, 400]);
    expect(statuses.slice(3)).toEqual(Array(9).fill(429));
    // Another client (another right-most address) is not limited: the key is the address the proxy saw.
    expect((await exchangeFrom('198.18.0.1, 203.0.113.10', 'sub_guess_other')).status).toBe(400);
  });

  it('B52: rotating left-most values do not escape the per-address sign-in lock either', async () => {
    const form = await openSignInForm(t.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await form.attempt(`user${i}@example.com`, 'guess', {
        'x-forwarded-for': `198.18.1.${i}, 203.0.113.20`,
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
    // The locked address is refused even the right password of a real account; other addresses are not.
    expect(
      (await form.attempt('alice', PASSWORD, { 'x-forwarded-for': '198.18.1.99, 203.0.113.20' })).status,
    ).toBe(429);
    const elsewhere = await form.attempt('alice', PASSWORD, { 'x-forwarded-for': '203.0.113.21' });
    expect(elsewhere.status).toBe(303);
  });
});

describe('X-Forwarded-For with no trusted proxy (sqlite)', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer('sqlite', {
      signIn: { maxFailuresPerAccountAndAddress: 2, delay: 0, maxDelay: 0 },
    });
    await loadWorld(t);
  });
  afterAll(() => t?.close());

  it('F12: the header is ignored, so every client behind an unconfigured proxy shares its locks, and the issuer warns once', async () => {
    const form = await openSignInForm(t.baseUrl);
    const from = (address: string) => ({ 'x-forwarded-for': address });
    expect((await form.attempt('alice', 'guess 1', from('198.51.100.41'))).status).toBe(401);
    expect((await form.attempt('alice', 'guess 2', from('198.51.100.41'))).status).toBe(429);
    // Another "client" behind the same (untrusted) proxy is the same address: locked out too.
    expect((await form.attempt('alice', PASSWORD, from('198.51.100.42'))).status).toBe(429);
    const warnings = t.logs.lines.filter((line) => line.includes('"proxy.untrusted_forwarded_for"'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringContaining('proxy.hops') });
  });
});
