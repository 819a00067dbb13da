/**
 * The demo's world: the reference issuer on SQLite in a fresh temporary data directory, seeded; the
 * orders API (examples/express-api); the integrator's backend (examples/impersonation-backend); and the
 * support console page (examples/support-console). All on 127.0.0.1.
 *
 * Every port is bound before anything starts, so a busy port stops the demo with one clear line and
 * nothing to clean up. `close()` stops every server and deletes the data directory.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIssuer, type Issuer } from '@gatehouse/issuer';
import express from 'express';
import { createApp } from '../../express-api/src/app.ts';
import { createBackend } from '../../impersonation-backend/src/app.ts';
import { cors } from '../../impersonation-backend/src/cors.ts';
import { createConsoleHandler } from '../../support-console/src/app.ts';
import { type DemoOptions, PORT_SOURCES, SERVERS, type ServerName } from './options.ts';
import { CONSOLE_CLIENT_ID, demoSeed, PEOPLE, SCOPES } from './seed.ts';

const HOST = '127.0.0.1';

/** A port could not be bound. */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  readonly server: ServerName;
  readonly port: number;
  constructor(server: ServerName, port: number, code: string) {
    const { flag, env } = PORT_SOURCES[server];
    super(
      code === 'EADDRINUSE'
        ? `port ${port} (${server}) is already in use: stop what uses it, or pick another with ${flag} N or ${env}=N`
        : `cannot listen on ${HOST}:${port} (${server}): ${code}; pick another port with ${flag} N or ${env}=N`,
    );
    this.server = server;
    this.port = port;
  }
}

/** One line written by a server's logger, parsed. */
export type LogLine = Record<string, unknown>;

/** A running demo. */
export interface World {
  readonly urls: Readonly<Record<ServerName, string>> & { readonly oidc: string };
  /** Resource indicators of the two APIs. */
  readonly resources: { readonly orders: string; readonly backend: string };
  readonly consoleClientId: string;
  readonly redirectUri: string;
  /** The demo's people: user ids by role. */
  readonly users: { readonly customer: string; readonly engineer: string };
  /** The temporary data directory (SQLite file and issuer log). */
  readonly dataDir: string;
  readonly issuer: Issuer;
  /** The Management API credentials of the demo's administrator (never printed). */
  readonly admin: { readonly clientId: string; readonly clientSecret: string };
  /** Audit lines of the orders API and decision lines of the backend, as they are written. */
  readonly lines: { readonly api: LogLine[]; readonly backend: LogLine[] };
  /** Called with every new line (e.g. to print the audit lines of clicks in the console). */
  onLine: ((source: 'api' | 'backend', line: LogLine) => void) | undefined;
  close(): Promise<void>;
}

async function bind(name: ServerName, port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new PortInUseError(name, port, err.code ?? err.message)),
    );
    server.listen(port, HOST, () => resolve());
  });
  return server;
}

async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Bind the ports, create the data directory, start and seed the issuer, and attach the applications.
 *
 * @example
 * ```ts
 * const world = await startWorld({ ports: { issuer: 0, api: 0, backend: 0, console: 0 }, once: true });
 * console.log(world.urls.console);
 * await world.close();
 * ```
 */
export async function startWorld(options: Pick<DemoOptions, 'ports'>): Promise<World> {
  const servers = new Map<ServerName, Server>();
  try {
    for (const name of SERVERS) servers.set(name, await bind(name, options.ports[name]));
  } catch (err) {
    await Promise.all([...servers.values()].map(closeServer));
    throw err;
  }
  const url = (name: ServerName) => `http://${HOST}:${(servers.get(name)!.address() as AddressInfo).port}`;
  const urls = {
    issuer: url('issuer'),
    oidc: `${url('issuer')}/oidc`,
    api: url('api'),
    backend: url('backend'),
    console: url('console'),
  };
  // Resource indicators are the APIs' own URLs (RFC 8707): what the tokens' `aud` names.
  const resources = { orders: urls.api, backend: urls.backend };

  const dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-demo-'));
  const log = createWriteStream(join(dataDir, 'issuer.log'));
  let issuer: Issuer | undefined;
  const close = async () => {
    await Promise.all([...servers.values()].map(closeServer));
    await issuer?.close();
    await new Promise((resolve) => log.end(resolve));
    await rm(dataDir, { recursive: true, force: true });
  };

  try {
    const admin = { clientId: 'demo-admin', clientSecret: randomBytes(32).toString('base64url') };
    const backendSecret = randomBytes(32).toString('base64url');
    const ordersApiSecret = randomBytes(32).toString('base64url');
    issuer = await createIssuer({
      baseUrl: urls.issuer,
      dataDir,
      admin,
      log: { level: 'info', destination: log },
      // The issuer's metrics in Prometheus' format on a loopback port of their own (any free one).
      telemetry: { prometheus: 'own-port', prometheusPort: 0 },
    });
    await issuer.seed(
      demoSeed({
        resources,
        managementApi: `${urls.issuer}/api`,
        consoleOrigin: urls.console,
        backendSecret,
        ordersApiSecret,
      }),
    );
    const idOf = async (username: string) => {
      const user = await issuer!.store.users.findByLogin(username);
      if (user === undefined) throw new Error(`seeded user ${username} not found`);
      return user.id;
    };
    const users = {
      customer: await idOf(PEOPLE.customer.username),
      engineer: await idOf(PEOPLE.engineer.username),
    };

    const world: World = {
      urls,
      resources,
      consoleClientId: CONSOLE_CLIENT_ID,
      redirectUri: `${urls.console}/callback`,
      users,
      dataDir,
      issuer,
      admin,
      lines: { api: [], backend: [] },
      onLine: undefined,
      close,
    };
    const sink = (source: 'api' | 'backend') => {
      const write = (line: string) => {
        const parsed = JSON.parse(line) as LogLine;
        world.lines[source].push(parsed);
        world.onLine?.(source, parsed);
      };
      return { info: write, error: write };
    };

    const ordersApi = express();
    ordersApi.use(cors([urls.console]));
    ordersApi.use(
      createApp({
        issuer: urls.oidc,
        audience: resources.orders,
        logger: sink('api'),
        // Impersonation tokens are asked about at the issuer on every request, so ending one applies at once.
        introspection: {
          clientId: PEOPLE.ordersApiClientId,
          clientSecret: ordersApiSecret,
          mode: 'delegated',
        },
      }),
    );
    const backend = createBackend({
      endpoint: urls.issuer,
      audience: resources.backend,
      clientId: PEOPLE.backendClientId,
      clientSecret: backendSecret,
      corsOrigins: [urls.console],
      logger: sink('backend'),
    });
    const consolePage = createConsoleHandler({
      origin: urls.console,
      endpoint: urls.issuer,
      clientId: CONSOLE_CLIENT_ID,
      backend: { resource: resources.backend, url: urls.backend },
      orders: { resource: resources.orders, url: urls.api, scopes: [SCOPES.read] },
      impersonationScope: SCOPES.impersonate,
      scopes: [SCOPES.impersonate, SCOPES.read],
      directory: {
        [users.customer]: PEOPLE.customer.username,
        [users.engineer]: PEOPLE.engineer.username,
      },
      defaults: { userId: users.customer, reason: PEOPLE.reason, ticketId: PEOPLE.ticketId },
    });
    const handlers: Record<ServerName, (req: IncomingMessage, res: ServerResponse) => void> = {
      issuer: issuer.handler,
      api: ordersApi,
      backend,
      console: consolePage,
    };
    for (const name of SERVERS) servers.get(name)!.on('request', handlers[name]);
    return world;
  } catch (err) {
    await close();
    throw err;
  }
}
