/**
 * The `dpop` setting: defaults, validation, the config file and `GATEHOUSE_DPOP_REQUIRE_NONCE`, and
 * what `requireNonce` does at a real issuer's token endpoint (SQLite).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { ConfigError } from '../../src/errors.js';
import { resolveConfig } from '../../src/issuer-config.js';
import { manualKey, manualProof, postWithProof } from '../helpers/dpop.js';
import { loadExchangeWorld, teWeb } from '../helpers/exchange.js';
import { loadWorld, ORDERS, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('dpop settings', () => {
  it('default: nonces not required', () => {
    expect(DEFAULTS.dpop.requireNonce).toBe(false);
    expect(resolveConfig(base).dpop).toEqual({ requireNonce: false });
    expect(resolveConfig({ ...base, dpop: { requireNonce: true } }).dpop).toEqual({ requireNonce: true });
  });

  it('a bad value or an unknown member throws a ConfigError naming it', () => {
    const attempt = (dpop: unknown) => () => resolveConfig({ ...base, dpop } as never);
    expect(attempt('yes')).toThrow(ConfigError);
    expect(attempt({ requireNonce: 'yes' })).toThrow(/"dpop.requireNonce" must be true or false/);
    expect(attempt({ requireNonces: true })).toThrow(/"dpop.requireNonces" is not a known option/);
  });

  it('is read from the config file and from GATEHOUSE_DPOP_REQUIRE_NONCE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-dpop-config-'));
    try {
      writeFileSync(join(dir, 'gatehouse-issuer.json'), JSON.stringify({ dpop: { requireNonce: true } }));
      expect(loadConfig({ env: {}, cwd: dir }).dpop).toEqual({ requireNonce: true });
      expect(loadConfig({ env: { GATEHOUSE_DPOP_REQUIRE_NONCE: 'false' }, cwd: dir }).dpop).toEqual({
        requireNonce: false,
      });
      expect(loadConfig({ env: { GATEHOUSE_DPOP_REQUIRE_NONCE: 'true' }, cwd: tmpdir() }).dpop).toEqual({
        requireNonce: true,
      });
      expect(() => loadConfig({ env: { GATEHOUSE_DPOP_REQUIRE_NONCE: 'maybe' }, cwd: tmpdir() })).toThrow(
        ConfigError,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each([false, true])('requireNonce: %s', (requireNonce) => {
  let t: TestIssuer;
  beforeAll(async () => {
    t = await startIssuer('sqlite', { dpop: { requireNonce } });
    await loadWorld(t);
    await loadExchangeWorld(t);
  });
  afterAll(() => t.close());

  it(
    requireNonce
      ? 'a proof without a nonce gets use_dpop_nonce and a DPoP-Nonce; with it, a bound token'
      : 'a proof without a nonce is accepted (and a nonce is offered for later)',
    async () => {
      const url = `${t.baseUrl}/oidc/token`;
      const form = { grant_type: 'client_credentials', resource: ORDERS };
      const credentials = { clientId: 'worker', clientSecret: SECRETS.worker };
      const key = manualKey();
      const first = await postWithProof(url, form, manualProof(key, { htm: 'POST', htu: url }), credentials);
      const nonce = first.headers.get('dpop-nonce');
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      if (!requireNonce) {
        expect(first.status).toBe(200);
        expect(first.body.token_type).toBe('DPoP');
        return;
      }
      expect(first.status).toBe(400);
      expect(first.body.error).toBe('use_dpop_nonce');
      const second = await postWithProof(
        url,
        form,
        manualProof(key, { htm: 'POST', htu: url, nonce: nonce! }),
        credentials,
      );
      expect(second.status).toBe(200);
      expect(second.body.token_type).toBe('DPoP');
      // A nonce-free proof for the exchange grant is refused the same way.
      const exchange = await postWithProof(
        url,
        {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: 'x',
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          resource: ORDERS,
        },
        manualProof(key, { htm: 'POST', htu: url }),
        teWeb,
      );
      expect(exchange.status).toBe(400);
      expect(exchange.body.error).toBe('use_dpop_nonce');
    },
  );
});
