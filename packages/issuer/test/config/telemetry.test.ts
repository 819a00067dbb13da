/**
 * The `telemetry` settings: metrics on, no OTLP endpoint, Prometheus off (9464 on loopback when turned
 * on) by default; validated with messages naming the setting (an `issuer-port` endpoint without a token
 * is refused, a short token too); read from the config file, the environment and the flags, the token
 * only from the environment (never a flag: the process list is public), and named by the CLI's errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { loadConfig } from '../../src/cli/config.js';
import { runCli } from '../../src/cli/run.js';
import { CLI_SETTINGS } from '../../src/cli/settings.js';
import { DEFAULTS } from '../../src/config/defaults.js';
import { resolveConfig } from '../../src/issuer-config.js';
import { cliIo } from '../helpers/cli-io.js';

const base = { baseUrl: 'http://localhost:3001' };
const TOKEN = 'metrics-token-0123456789abcdefghijklmnop';

describe('telemetry settings', () => {
  it('default: metrics on, exported nowhere by the issuer itself, /metrics off', () => {
    expect(resolveConfig(base).telemetry).toEqual({
      metrics: true,
      traces: true,
      otlpEndpoint: undefined,
      exportInterval: 60,
      serviceName: undefined,
      prometheus: 'off',
      prometheusPort: 9464,
      prometheusHost: '127.0.0.1',
      prometheusToken: undefined,
      meterProvider: undefined,
    });
    expect(DEFAULTS.telemetry.prometheus).toBe('off');
    expect(Object.isFrozen(resolveConfig(base).telemetry)).toBe(true);
  });

  it('a bad value or an unknown member throws a ConfigError naming it', () => {
    const attempt = (value: unknown) => () => resolveConfig({ ...base, telemetry: value } as never);
    expect(attempt(true)).toThrow('"telemetry" must be an object');
    expect(attempt({ prometheus: 'on' })).toThrow(
      '"telemetry.prometheus" must be one of off, own-port, issuer-port',
    );
    expect(attempt({ prometheusPort: 70_000 })).toThrow(
      '"telemetry.prometheusPort" must be an integer between 0 and 65535',
    );
    expect(attempt({ exportInterval: 0 })).toThrow(
      '"telemetry.exportInterval" must be an integer between 1 and 3600',
    );
    expect(attempt({ otlpEndpoint: 'otel-collector:4318' })).toThrow(
      '"telemetry.otlpEndpoint" must be an http(s) URL, e.g. http://otel-collector:4318',
    );
    expect(attempt({ prometheusToken: 'short' })).toThrow(
      '"telemetry.prometheusToken" must be a string of at least 32 characters',
    );
    expect(attempt({ prometheusTokn: TOKEN })).toThrow(
      '"telemetry.prometheusTokn" is not a known option — did you mean "telemetry.prometheusToken"?',
    );
    expect(attempt({ prometheus: 'issuer-port' })).toThrow(
      '"telemetry.prometheusToken" is required when telemetry.prometheus is "issuer-port" (the issuer\'s port is public)',
    );
    expect(attempt({ metrics: false, prometheus: 'own-port' })).toThrow(
      '"telemetry.prometheus" must be "off" when telemetry.metrics is false',
    );
    expect(attempt({ meterProvider: {} })).toThrow(
      '"telemetry.meterProvider" must be an OpenTelemetry MeterProvider (with getMeter())',
    );
    const provider = new MeterProvider();
    expect(resolveConfig({ ...base, telemetry: { meterProvider: provider } }).telemetry.meterProvider).toBe(
      provider,
    );
    expect(
      resolveConfig({ ...base, telemetry: { otlpEndpoint: 'http://collector:4318/' } }).telemetry
        .otlpEndpoint,
    ).toBe('http://collector:4318');
  });

  it('is read from the config file, the environment and the flags; the token only from the environment', () => {
    const token = CLI_SETTINGS.find((entry) => entry.setting === 'telemetry.prometheusToken')!;
    expect(token.flag).toBeUndefined();
    expect(token.env).toEqual(['GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN']);
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-telemetry-config-'));
    try {
      writeFileSync(
        join(dir, 'gatehouse-issuer.json'),
        JSON.stringify({ ...base, telemetry: { prometheus: 'own-port' } }),
      );
      expect(loadConfig({ env: {}, cwd: dir }).telemetry).toEqual({ prometheus: 'own-port' });
      const env = {
        GATEHOUSE_TELEMETRY_PROMETHEUS: 'issuer-port',
        GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN: TOKEN,
        GATEHOUSE_TELEMETRY_OTLP_ENDPOINT: 'http://collector:4318',
      };
      expect(loadConfig({ env, cwd: dir }).telemetry).toEqual({
        prometheus: 'issuer-port',
        prometheusToken: TOKEN,
        otlpEndpoint: 'http://collector:4318',
      });
      const { flags, flagNames } = parseArgs([
        'start',
        '--telemetry-prometheus',
        'own-port',
        '--telemetry-prometheus-port=9500',
        '--telemetry-metrics=false',
      ]);
      expect(flags).toEqual({
        'telemetry.prometheus': 'own-port',
        'telemetry.prometheusPort': 9500,
        'telemetry.metrics': false,
      });
      expect(loadConfig({ env: {}, flags, flagNames, cwd: dir }).telemetry).toEqual({
        prometheus: 'own-port',
        prometheusPort: 9500,
        metrics: false,
      });
      expect(() => parseArgs(['start', '--telemetry-prometheus-token', TOKEN])).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI names the variable of a short token, and never echoes it', async () => {
    const cli = cliIo({ GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN: 'too-short-a-token' });
    const { code } = await runCli(['start', '--database', ':memory:', '--port', '0'], cli.io as never);
    expect(code).toBe(2);
    expect(cli.stderr()).toBe(
      'Configuration error: "GATEHOUSE_TELEMETRY_PROMETHEUS_TOKEN" must be a string of at least 32 characters\n',
    );
  });
});
