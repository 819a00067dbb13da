/**
 * The `webhooks` setting: defaults, validation (an allow-list entry that is no address, CIDR range or
 * host name names its index), the config file, the environment (`GATEHOUSE_WEBHOOK_*`) and the
 * `start` flags.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/cli/config.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { parseAllowedTarget } from '../../src/config/webhooks.js';
import { ConfigError } from '../../src/errors.js';
import { resolveConfig } from '../../src/issuer-config.js';

const base = { baseUrl: 'http://localhost:3001' };

describe('webhooks settings', () => {
  it('defaults: no private target allowed, 3 days before disabling, 24 h overlap, 4 per endpoint', () => {
    expect(resolveConfig(base).webhooks).toEqual({
      allowedPrivateTargets: [],
      disableAfter: 259_200,
      secretOverlap: 86_400,
      concurrency: 4,
    });
    expect(DEFAULTS.webhooks.allowedPrivateTargets).toEqual([]);
    const given = resolveConfig({
      ...base,
      webhooks: { allowedPrivateTargets: ['10.0.0.0/8', 'fd00::1', 'siem.corp'], disableAfter: 60 },
    }).webhooks;
    expect(given).toMatchObject({
      allowedPrivateTargets: ['10.0.0.0/8', 'fd00::1', 'siem.corp'],
      disableAfter: 60,
    });
    expect(Object.isFrozen(given.allowedPrivateTargets)).toBe(true);
  });

  it('a bad value or an unknown member throws a ConfigError naming it', () => {
    const attempt = (webhooks: unknown) => () => resolveConfig({ ...base, webhooks } as never);
    expect(attempt('all')).toThrow(ConfigError);
    expect(attempt({ allowedPrivateTargets: ['10.0.0.0/8', '10.0.0.0/33'] })).toThrow(
      /"webhooks.allowedPrivateTargets.1" must be an IP address, a CIDR range \(10.0.0.0\/8\) or a host name/,
    );
    expect(attempt({ allowedPrivateTargets: 'x' })).toThrow(
      /"webhooks.allowedPrivateTargets" must be a list/,
    );
    expect(attempt({ disableAfter: 0 })).toThrow(/"webhooks.disableAfter" must be an integer between 1/);
    expect(attempt({ secretOverlap: 604_801 })).toThrow(/"webhooks.secretOverlap" must be an integer/);
    expect(attempt({ concurrency: 0 })).toThrow(/"webhooks.concurrency" must be an integer between 1 and 64/);
    expect(attempt({ allowPrivateTargets: [] })).toThrow(
      /"webhooks.allowPrivateTargets" is not a known option/,
    );
  });

  it('is read from the config file, GATEHOUSE_WEBHOOK_* and the start flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-webhooks-config-'));
    try {
      writeFileSync(
        join(dir, 'gatehouse-issuer.json'),
        JSON.stringify({ webhooks: { allowedPrivateTargets: ['10.1.0.0/16'], concurrency: 2 } }),
      );
      expect(loadConfig({ env: {}, cwd: dir }).webhooks).toMatchObject({
        allowedPrivateTargets: ['10.1.0.0/16'],
        concurrency: 2,
      });
      const env = {
        GATEHOUSE_WEBHOOK_ALLOWED_PRIVATE_TARGETS: '192.168.7.0/24, hooks.lan',
        GATEHOUSE_WEBHOOK_DISABLE_AFTER: '600',
        GATEHOUSE_WEBHOOK_SECRET_OVERLAP: '0',
      };
      expect(loadConfig({ env, cwd: dir }).webhooks).toEqual({
        allowedPrivateTargets: ['192.168.7.0/24', 'hooks.lan'],
        disableAfter: 600,
        secretOverlap: 0,
        concurrency: 2,
      });
      // The file and the environment give the settings; resolving them validates each entry.
      const bad = loadConfig({
        env: { GATEHOUSE_WEBHOOK_ALLOWED_PRIVATE_TARGETS: 'not a host' },
        cwd: tmpdir(),
      });
      expect(() => resolveConfig({ ...base, webhooks: bad.webhooks })).toThrow(
        /"webhooks.allowedPrivateTargets.0"/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(
      parseArgs(['start', '--webhook-allowed-private-targets', '10.0.0.0/8', '--webhook-concurrency', '8'])
        .command,
    ).toBe('start');
  });

  it('allow-list entries are addresses, CIDR ranges or host names; anything else throws', () => {
    expect(parseAllowedTarget('10.0.0.0/8')).toMatchObject({ range: [expect.anything(), 8] });
    expect(parseAllowedTarget('::1')).toMatchObject({ range: [expect.anything(), 128] });
    expect(parseAllowedTarget('Hooks.Internal')).toEqual({ name: 'hooks.internal' });
    for (const bad of ['10.0.0.0/33', '10.0.0.0/8/1', 'http://x', 'a b', '', '*.corp', '::1/129'])
      expect(() => parseAllowedTarget(bad), bad).toThrow(TypeError);
  });
});
