/**
 * Test helpers: start a real issuer on loopback on a fresh database of one driver (in-memory SQLite or
 * a fresh PostgreSQL schema), capture its log lines, and obtain Management API tokens with the
 * bootstrap administrator's credentials.
 */
import { Writable } from 'node:stream';
import { freePort } from '../../../../test/support/ports.js';
import { createIssuer, type Issuer, type IssuerConfig } from '../../src/index.js';
import { type LoadBalancer, startLoadBalancer } from './balancer.js';
import { type Driver, freshDatabase } from './drivers.js';

export { freePort } from '../../../../test/support/ports.js';

/** Collects every JSON log line written by the issuer. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    callback();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

/**
 * A started issuer and its base URL. On PostgreSQL it is two instances on one database behind a
 * round-robin load balancer at `baseUrl` (consecutive requests land on different instances), so every
 * suite also checks that the instances behave as one server; `issuer` is the first of them.
 */
export interface TestIssuer {
  readonly issuer: Issuer;
  /** Every instance serving `baseUrl` (one on SQLite, two on PostgreSQL). */
  readonly instances: readonly Issuer[];
  readonly baseUrl: string;
  readonly logs: LogCapture;
  /** Administrator client id and secret from the bootstrap. */
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  /**
   * Resolves once every instance signs with the active key of the database. A rotation reaches the
   * other instances by notification, a few milliseconds later (see docs/deployment.md).
   */
  converge(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Start an issuer on 127.0.0.1 with a fresh database of `driver`: one instance on SQLite, two instances
 * behind a load balancer on PostgreSQL (one only when `overrides.store` is given).
 */
export async function startIssuer(
  driver: Driver,
  overrides: Partial<IssuerConfig> = {},
): Promise<TestIssuer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logs = new LogCapture();
  const config: IssuerConfig = {
    baseUrl,
    database: await freshDatabase(driver),
    passwords: { scryptCost: 1024 },
    ...overrides,
    log: { level: 'debug', destination: logs, ...overrides.log },
  };
  const issuer = await createIssuer(config);
  const secret = issuer.admin.adminClientSecret ?? overrides.admin?.clientSecret;
  if (secret === undefined) {
    await issuer.close();
    throw new Error('no admin secret');
  }
  const instances = [issuer];
  if (driver === 'postgres' && overrides.store === undefined) {
    // A second instance of the same issuer (same public URL, same database); it finds the administrator.
    instances.push(await createIssuer(config));
  }
  let balancer: LoadBalancer | undefined;
  try {
    if (instances.length === 1) {
      await issuer.listen(port, '127.0.0.1');
    } else {
      const backends = await Promise.all(
        instances.map(async (instance) => ({ port: (await instance.listen(0, '127.0.0.1')).port })),
      );
      balancer = await startLoadBalancer(port, backends);
    }
  } catch (err) {
    await Promise.all(instances.map((instance) => instance.close()));
    throw err;
  }
  return {
    issuer,
    instances,
    baseUrl,
    logs,
    admin: { clientId: issuer.admin.adminClientId, clientSecret: secret },
    converge: async () => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const active = (await issuer.store.keys.list()).find((key) => key.status === 'active')!.kid;
        if (instances.every((instance) => instance.jwks().keys[0]?.kid === active)) return;
        if (Date.now() > deadline) throw new Error('the instances did not converge on the active key');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      await balancer?.close();
      await Promise.all(instances.map((instance) => instance.close()));
    },
  };
}

/** Client credentials at the token endpoint with HTTP Basic. */
export async function clientCredentials(
  baseUrl: string,
  clientId: string,
  clientSecret: string,
  params: Record<string, string | string[]>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  for (const [name, value] of Object.entries(params))
    for (const item of [value].flat()) form.append(name, item);
  const res = await fetch(`${baseUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
    },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A Management API token for the administrator (scope `all` unless given). */
export async function adminToken(t: Pick<TestIssuer, 'baseUrl' | 'admin'>, scope?: string): Promise<string> {
  const { status, body } = await clientCredentials(t.baseUrl, t.admin.clientId, t.admin.clientSecret, {
    resource: `${t.baseUrl}/api`,
    ...(scope === undefined ? {} : { scope }),
  });
  if (status !== 200) throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`);
  return String(body.access_token);
}

/** Call the Management API. */
export async function api(
  t: Pick<TestIssuer, 'baseUrl'>,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${t.baseUrl}/api${path}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.length > 0 ? JSON.parse(text) : undefined, headers: res.headers };
}

/** A Management API token of a new M2M application whose role holds only `scopes` of the Management API. */
export async function managementToken(
  t: Pick<TestIssuer, 'baseUrl' | 'admin'>,
  scopes: readonly string[],
): Promise<string> {
  return (await managementClient(t, scopes)).token;
}

/** A new M2M application whose role holds only `scopes` of the Management API, and a token of it. */
export interface ManagementClient {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Its role (`MachineToMachine`, holding exactly the scopes asked for). */
  readonly roleId: string;
  readonly token: string;
}

/** Create a {@link ManagementClient} through the administrator. */
export async function managementClient(
  t: Pick<TestIssuer, 'baseUrl' | 'admin'>,
  scopes: readonly string[],
): Promise<ManagementClient> {
  const admin = await adminToken(t);
  const resources = await api(t, admin, 'GET', '/resources?pageSize=100');
  const management = resources.body.items.find((r: { system: boolean }) => r.system);
  const all = await api(t, admin, 'GET', `/resources/${management.id}/scopes`);
  const scopeIds = all.body.items
    .filter((s: { name: string }) => scopes.includes(s.name))
    .map((s: { id: string }) => s.id);
  const suffix = Math.random().toString(36).slice(2, 10);
  const role = await api(t, admin, 'POST', '/roles', { name: `m2m-${suffix}`, type: 'MachineToMachine' });
  await api(t, admin, 'POST', `/roles/${role.body.id}/scopes`, { scopeIds });
  const app = await api(t, admin, 'POST', '/applications', {
    name: `App ${suffix}`,
    type: 'MachineToMachine',
  });
  await api(t, admin, 'POST', `/applications/${app.body.id}/roles`, { roleIds: [role.body.id] });
  const issued = await clientCredentials(t.baseUrl, app.body.clientId, app.body.clientSecret, {
    resource: `${t.baseUrl}/api`,
  });
  if (issued.status !== 200) throw new Error(`token request failed: ${issued.status}`);
  return {
    clientId: app.body.clientId,
    clientSecret: app.body.clientSecret,
    roleId: role.body.id,
    token: String(issued.body.access_token),
  };
}
