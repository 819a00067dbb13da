/**
 * docs/issuer.md and docs/impersonation.md state the same defaults as DEFAULTS and document every
 * Management API scope; impersonation.md has the sequence diagram and a curl example per step.
 * docs/deployment.md names real environment variables and defaults, shows the measured numbers of
 * bench/results/storage.json, the answers of `/health/ready` as an issuer gives them, and a Kubernetes
 * sample whose probes and drain settings fit together.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, loadConfig, unknownVariables } from '../src/cli/config.js';
import { CLI_SETTINGS } from '../src/cli/settings.js';
import { DEFAULTS } from '../src/config/defaults.js';
import { RESERVED_CLAIMS } from '../src/customize/types.js';
import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from '../src/grants/token-exchange.js';
import { resolveConfig } from '../src/issuer-config.js';
import { MANAGEMENT_SCOPES } from '../src/management/scopes.js';
import { createIssuer } from '../src/server.js';
import { MIGRATIONS } from '../src/storage/migrations/index.js';
import { freePort } from './helpers/issuer.js';

const doc = readFileSync(join(import.meta.dirname, '../../../docs/issuer.md'), 'utf8');
const impersonation = readFileSync(join(import.meta.dirname, '../../../docs/impersonation.md'), 'utf8');
const rowIn = (text: string, setting: string) =>
  text.split('\n').find((line) => line.startsWith(`| \`${setting}\``));
const row = (setting: string) => rowIn(doc, setting);

function impersonationDefaults(): Array<[string, unknown]> {
  return [
    ['subjectTokens.ttl', DEFAULTS.subjectTokens.ttl],
    ['tokenExchange.maxFailures', DEFAULTS.tokenExchange.maxFailures],
    ['tokenExchange.failureWindow', DEFAULTS.tokenExchange.failureWindow],
    ...Object.entries(DEFAULTS.customJwtClaims).map(([key, value]): [string, unknown] => [
      `customJwtClaims.${key}`,
      typeof value === 'string' ? `"${value}"` : value,
    ]),
  ];
}

describe('docs/issuer.md', () => {
  const flat: Array<[string, unknown]> = [
    ['port', DEFAULTS.port],
    ['host', `"${DEFAULTS.host}"`],
    ['dataDir', `"${DEFAULTS.dataDir}"`],
    ['trustProxy', DEFAULTS.trustProxy],
    ['log.level', `"${DEFAULTS.log.level}"`],
    ...Object.entries(DEFAULTS.keys).map(([key, value]): [string, unknown] => [
      `keys.${key}`,
      typeof value === 'string' ? `"${value}"` : value,
    ]),
    ...Object.entries(DEFAULTS.ttl).map(([key, value]): [string, unknown] => [`ttl.${key}`, value]),
    ...Object.entries(DEFAULTS.http).map(([key, value]): [string, unknown] => [`http.${key}`, value]),
    ...Object.entries(DEFAULTS.passwords).map(([key, value]): [string, unknown] => [
      `passwords.${key}`,
      value,
    ]),
    ...impersonationDefaults(),
    ['dpop.requireNonce', DEFAULTS.dpop.requireNonce],
    ['console.reauthenticateAfter', DEFAULTS.console.reauthenticateAfter],
    ['proxy.hops', DEFAULTS.proxy.hops],
    ...Object.entries(DEFAULTS.signIn)
      .filter(([key]) => key !== 'concurrentHashes') // depends on the machine: "half the CPUs"
      .map(([key, value]): [string, unknown] => [`signIn.${key}`, value]),
    ...Object.entries(DEFAULTS.rateLimits).map(([key, value]): [string, unknown] => [
      `rateLimits.${key}`,
      value,
    ]),
    ['shutdown.drainDelay', DEFAULTS.shutdown.drainDelay],
    ['shutdown.drainTimeout', DEFAULTS.shutdown.drainTimeout],
    ['telemetry.metrics', DEFAULTS.telemetry.metrics],
    ['telemetry.traces', DEFAULTS.telemetry.traces],
    ['telemetry.exportInterval', DEFAULTS.telemetry.exportInterval],
    ['telemetry.prometheus', `"${DEFAULTS.telemetry.prometheus}"`],
    ['telemetry.prometheusPort', DEFAULTS.telemetry.prometheusPort],
    ['telemetry.prometheusHost', `"${DEFAULTS.telemetry.prometheusHost}"`],
  ];

  it.each(flat)('states %s = %s', (setting, value) => {
    expect(row(setting), `row for ${setting}`).toBeDefined();
    expect(row(setting)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it.each(CLI_SETTINGS.map((entry) => [entry.setting, entry] as const))(
    'gives %s its flag and environment variables',
    (setting, entry) => {
      const cells = row(setting)?.split('|') ?? [];
      expect(cells, `row for ${setting}`).toHaveLength(7);
      for (const flag of [entry.flag, ...(entry.aliases ?? [])])
        expect(cells[4]).toContain(flag === undefined ? '—' : `\`${flag}\``);
      for (const variable of entry.env) expect(cells[5]).toContain(`\`${variable}\``);
    },
  );

  it('lists every Management API scope', () => {
    for (const scope of MANAGEMENT_SCOPES) expect(doc).toContain(`\`${scope.name}\``);
  });
});

describe('every doc', () => {
  it('names only environment variables the issuer reads (or that Gatehouse names for clients)', () => {
    const docs = join(import.meta.dirname, '../../../docs');
    const named = new Set<string>();
    for (const file of readdirSync(docs).filter((name) => name.endsWith('.md')))
      for (const [name] of readFileSync(join(docs, file), 'utf8').matchAll(
        /\bGATEHOUSE_[A-Z0-9_]*[A-Z0-9]\b/g,
      ))
        named.add(name);
    expect(named.size).toBeGreaterThan(20);
    // Not issuer settings, on purpose: NestJS's injection token, an example app's own variable, and
    // the misspelling troubleshooting.md shows the warning for.
    const notSettings = new Set(['GATEHOUSE_VERIFIER', 'GATEHOUSE_BUILD', 'GATEHOUSE_PROT']);
    for (const name of named)
      if (!notSettings.has(name)) expect(unknownVariables({ [name]: '1' }), name).toEqual([]);
  });
});

describe('docs/impersonation.md', () => {
  it.each(impersonationDefaults())('states %s = %s', (setting, value) => {
    expect(rowIn(impersonation, setting), `row for ${setting}`).toBeDefined();
    expect(rowIn(impersonation, setting)!.split('|')[2]).toContain(`\`${value}\``);
  });

  it('has a Mermaid sequence diagram and a curl example for each step', () => {
    expect(impersonation).toMatch(/```mermaid\nsequenceDiagram/);
    const curls = impersonation
      .split('```sh')
      .slice(1)
      .map((block) => block.split('```')[0]!);
    const step = (pattern: RegExp) => curls.some((block) => /curl /.test(block) && pattern.test(block));
    expect(step(/\/api\/subject-tokens/)).toBe(true);
    expect(step(/grant-type:token-exchange[\s\S]*actor_token=/)).toBe(true);
    expect(step(/authorization: Bearer \$ACCESS_TOKEN/)).toBe(true);
    expect(step(/personal_access_token/)).toBe(true);
  });

  it('names the documented URNs and the reserved claims exactly', () => {
    for (const urn of [TOKEN_EXCHANGE_GRANT_TYPE, ...Object.values(TOKEN_TYPES)])
      expect(impersonation).toContain(urn);
    for (const claim of RESERVED_CLAIMS) expect(impersonation).toContain(`\`${claim}\``);
  });
});

describe('docs/deployment.md', () => {
  const deployment = readFileSync(join(import.meta.dirname, '../../../docs/deployment.md'), 'utf8');

  it('maps each environment variable it lists to the setting the CLI reads it into', () => {
    const rows = deployment.split('\n').filter((line) => /^\| `(DATABASE_URL|GATEHOUSE_[A-Z_]+)`/.test(line));
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      const [variables, settings] = row.split('|').slice(1, 3) as [string, string];
      const names = [...variables.matchAll(/`([A-Z_]+)`/g)].map((match) => match[1]!);
      const stated = [...settings.matchAll(/`([\w.*]+)`/g)].map((match) => match[1]!);
      for (const name of names) {
        const entry = ENVIRONMENT.find(([variable]) => variable === name);
        expect(entry, name).toBeDefined();
        expect(
          stated.some((setting) => setting === entry![1] || entry![1].startsWith(setting.replace('*', ''))),
          name,
        ).toBe(true);
      }
    }
  });

  it('states the pool and key defaults and the current migration', () => {
    expect(deployment).toContain(`default \`${DEFAULTS.postgres.poolSize}\``);
    expect(deployment).toContain(`\`${DEFAULTS.postgres.connectionTimeout}\` ms`);
    expect(deployment).toContain(`\`${DEFAULTS.postgres.idleTimeout}\` ms`);
    expect(deployment).toContain(`\`keys.reloadInterval\` (\`${DEFAULTS.keys.reloadInterval}\``);
    expect(deployment).toContain(`\`keys.gracePeriod\` (\`${DEFAULTS.keys.gracePeriod}\``);
    expect(deployment).toContain(`"current":"${MIGRATIONS.at(-1)!.version}"`);
  });

  it.each([
    ['storage.json', '<!-- bench/results/storage.json -->'],
    ['storage-shared.json', '<!-- bench/results/storage-shared.json -->'],
  ])('shows the numbers of bench/results/%s', (file, marker) => {
    const results = JSON.parse(readFileSync(join(import.meta.dirname, '../bench/results', file), 'utf8')) as {
      setups: Record<
        string,
        {
          clientCredentialsPerSecond: number;
          tokenExchangesPerSecond: number;
          clientCredentialsRatio: number;
          tokenExchangeRatio: number;
        }
      >;
    };
    const label = {
      sqlite: '1 instance, SQLite',
      pg: '1 instance, PostgreSQL',
      'pg×2': '2 instances, PostgreSQL',
    };
    expect(deployment).toContain(marker);
    const table = deployment.slice(deployment.indexOf(marker));
    for (const [setup, name] of Object.entries(label)) {
      const s = results.setups[setup]!;
      const row = table
        .split('\n')
        .find((line) => line.startsWith(`| ${name} `) && line.includes('tokens/s'));
      expect(row, name).toBeDefined();
      const cells = row!.split('|').map((cell) => cell.trim());
      expect(cells[2]).toBe(`${Math.round(s.clientCredentialsPerSecond).toLocaleString('en-US')} tokens/s`);
      expect(cells[3]).toBe(`${s.clientCredentialsRatio.toFixed(2)}×`);
      expect(cells[4]).toBe(`${Math.round(s.tokenExchangesPerSecond).toLocaleString('en-US')} exchanges/s`);
      expect(cells[5]).toBe(`${s.tokenExchangeRatio.toFixed(2)}×`);
    }
  });
});

describe('docs/deployment.md: probes and graceful shutdown', () => {
  const deployment = readFileSync(join(import.meta.dirname, '../../../docs/deployment.md'), 'utf8');
  const section = deployment.slice(deployment.indexOf('## Probes and graceful shutdown'));

  it('shows the answers of /health/ready as an issuer gives them, ready and draining', async () => {
    const shown = [...section.matchAll(/<!-- output -->\n```json\n(.*)\n```/g)].map((match) => match[1]);
    expect(shown).toHaveLength(2);
    const port = await freePort();
    const issuer = await createIssuer({
      baseUrl: `http://127.0.0.1:${port}`,
      database: ':memory:',
      log: { level: 'silent' },
      shutdown: { drainDelay: 5, drainTimeout: 10 },
    });
    try {
      await issuer.listen(port, '127.0.0.1');
      expect(await (await fetch(`http://127.0.0.1:${port}/health/ready`)).text()).toBe(shown[0]);
      void issuer.shutdown();
      const draining = await fetch(`http://127.0.0.1:${port}/health/ready`);
      expect(draining.status).toBe(503);
      expect(await draining.text()).toBe(shown[1]);
    } finally {
      await issuer.close();
    }
  });

  it('the Kubernetes sample probes the real paths, and its timings fit the drain settings', () => {
    const yaml = section.split('```yaml\n')[1]!.split('```')[0]!;
    const env = Object.fromEntries(
      [...yaml.matchAll(/name: (GATEHOUSE_\w+), value: "([^"]*)"/g)].map((match) => [match[1]!, match[2]!]),
    );
    expect(Object.keys(env)).toContain('GATEHOUSE_SHUTDOWN_DRAIN_DELAY');
    expect(unknownVariables(env)).toEqual([]);
    const config = resolveConfig({
      ...loadConfig({ env, cwd: tmpdir() }),
      baseUrl: 'https://id.example.com',
    });
    const number = (pattern: RegExp, text = yaml) => Number(pattern.exec(text)![1]);
    const probe = (name: string) => yaml.slice(yaml.indexOf(`${name}:`)).split(/\n {6}\w/)[0]!;
    const liveness = probe('livenessProbe');
    const readiness = probe('readinessProbe');
    expect(liveness).toContain(`path: /health/live, port: ${config.port}`);
    expect(readiness).toContain(`path: /health/ready, port: ${config.port}`);
    expect(number(/containerPort: (\d+)/)).toBe(config.port);
    // The balancer (the endpoints controller) has taken the pod out before it stops accepting.
    const detection =
      number(/periodSeconds: (\d+)/, readiness) * number(/failureThreshold: (\d+)/, readiness);
    expect(config.shutdown.drainDelay).toBeGreaterThan(detection);
    // The issuer cuts (and says so) before the kubelet's SIGKILL.
    expect(number(/terminationGracePeriodSeconds: (\d+)/)).toBeGreaterThan(config.shutdown.drainTimeout);
    // A probe answer is cached for a second and bounded by the database timeout: within timeoutSeconds.
    expect(number(/timeoutSeconds: (\d+)/, readiness) * 1_000).toBeGreaterThan(
      DEFAULTS.health.databaseTimeout,
    );
  });
});
