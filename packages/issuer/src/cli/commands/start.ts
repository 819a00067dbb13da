/**
 * `gatehouse-issuer start`: bind the port first (a taken port stops the command with one line before
 * anything is created), create the issuer, serve, and only then print where it is, plus the
 * administrator's credentials when they are new: on the first start, or on a later start while the
 * generated secret has never been used (a fresh one replaces it, so a lost first banner costs nothing).
 *
 * @module
 */
import type { Server } from 'node:http';
import { resetAdminSecret } from '../../bootstrap.js';
import { epoch } from '../../internal/ids.js';
import { bindServer, closeServer } from '../../internal/listen.js';
import { resolveConfig } from '../../issuer-config.js';
import { createIssuer, type Issuer } from '../../server.js';
import { describeDatabase } from '../../storage/open.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/**
 * How the CLI says to pick another port or host.
 *
 * @example
 * ```ts
 * await bindServer(3001, '127.0.0.1', CHANGE_ADDRESS); // ListenError: … pick another port with --port N or GATEHOUSE_PORT=N
 * ```
 */
export const CHANGE_ADDRESS = Object.freeze({
  port: '--port N or GATEHOUSE_PORT=N',
  host: '--host or GATEHOUSE_HOST',
});

/** The banner lines about the administrator. */
function adminLines(issuer: Issuer, secret: string | undefined, reissued: boolean): string[] {
  const { config, admin } = issuer;
  if (secret === undefined) {
    const lines = [`  Administrator:   ${admin.adminClientId}`];
    if (admin.secretUnused)
      lines.push(
        '  Its secret has never been used. Lost it? Issue a new one: gatehouse-issuer admin reset-secret',
      );
    return lines;
  }
  return [
    '',
    reissued
      ? 'The administrator secret printed before was never used, so this start replaced it (the old one no longer works).'
      : 'Administrator application created.',
    `Its secret is shown only now: store it safely. ${
      issuer.store.multiNode
        ? '(Lost it? gatehouse-issuer admin reset-secret issues a new one.)'
        : '(Lost before its first use? The next start prints a new one.)'
    }`,
    `  Client ID:       ${admin.adminClientId}`,
    `  Client secret:   ${secret}`,
    '',
    'Get a Management API token:',
    `  curl -u '${admin.adminClientId}:<secret>' -d grant_type=client_credentials -d resource=${config.managementAudience} ${config.issuer}/token`,
  ];
}

/**
 * Start listening; resolves to the running issuer.
 *
 * @example
 * ```ts
 * const issuer = await start(parseArgs(['start', '--port', '3001']), io);
 * ```
 */
export async function start(args: ParsedArgs, io: CliIo): Promise<Issuer> {
  const options = configFor(args, io);
  const { port, host, basePath } = resolveConfig(options);
  const server: Server = await bindServer(port, host, CHANGE_ADDRESS, `${basePath}/health/live`);
  let issuer: Issuer;
  try {
    issuer = await createIssuer(options);
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  try {
    const address = issuer.serve(server);
    const { config, admin, store } = issuer;
    let secret = admin.adminClientSecret;
    // One process per SQLite database: replacing an unused secret cannot invalidate another running
    // instance's banner. On a shared database, `admin reset-secret` does it on purpose instead.
    const reissue = secret === undefined && admin.secretUnused && !store.multiNode;
    if (reissue) {
      secret = (await resetAdminSecret(store, epoch(), { unused: true })).clientSecret;
      issuer.log.info(
        { event: 'bootstrap.admin_secret_reissued', clientId: admin.adminClientId },
        'the unused administrator secret was replaced',
      );
    }
    const lines = [
      `Gatehouse issuer listening on ${address.address}:${address.port}`,
      `  Issuer:          ${config.issuer}`,
      `  Discovery:       ${config.issuer}/.well-known/openid-configuration`,
      `  Management API:  ${config.managementAudience}  (OpenAPI: ${config.managementAudience}/openapi.json)`,
      ...(config.console.enabled ? [`  Admin console:   ${config.baseUrl}/console/`] : []),
      `  Database:        ${config.store === undefined ? describeDatabase(config.database) : store.driver}`,
      ...metricsLines(issuer),
      ...adminLines(issuer, secret, reissue),
    ];
    io.stderr.write(`${lines.join('\n')}\n`);
    return issuer;
  } catch (err) {
    await issuer.close();
    throw err;
  }
}

/** Where Prometheus reads the metrics, when the `/metrics` endpoint is on (never the token). */
function metricsLines(issuer: Issuer): string[] {
  const { telemetry, baseUrl } = issuer.config;
  const token = telemetry.prometheusToken === undefined ? '' : '  (bearer token required)';
  if (issuer.metricsAddress !== undefined) {
    const { address, port } = issuer.metricsAddress;
    const host = address.includes(':') ? `[${address}]` : address;
    return [`  Metrics:         http://${host}:${port}/metrics${token}`];
  }
  return telemetry.prometheus === 'issuer-port' ? [`  Metrics:         ${baseUrl}/metrics${token}`] : [];
}
