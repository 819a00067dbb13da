/**
 * `gatehouse-issuer start`: start the issuer and print where it is, plus the administrator
 * credentials on the first start (once; they are never shown again).
 *
 * @module
 */
import { createIssuer, type Issuer } from '../../server.js';
import { describeDatabase } from '../../storage/open.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** Start listening; resolves to the running issuer. */
export async function start(args: ParsedArgs, io: CliIo): Promise<Issuer> {
  const issuer = await createIssuer(configFor(args, io));
  try {
    const address = await issuer.listen();
    const { config, admin } = issuer;
    const lines = [
      `Gatehouse issuer listening on ${address.address}:${address.port}`,
      `  Issuer:          ${config.issuer}`,
      `  Discovery:       ${config.issuer}/.well-known/openid-configuration`,
      `  Management API:  ${config.managementAudience}  (OpenAPI: ${config.managementAudience}/openapi.json)`,
      `  Database:        ${config.store === undefined ? describeDatabase(config.database) : issuer.store.driver}`,
    ];
    if (admin.adminClientSecret !== undefined) {
      lines.push(
        '',
        'Administrator application created. Its secret is shown only now: store it safely.',
        `  Client ID:       ${admin.adminClientId}`,
        `  Client secret:   ${admin.adminClientSecret}`,
        '',
        'Get a Management API token:',
        `  curl -u '${admin.adminClientId}:<secret>' -d grant_type=client_credentials -d resource=${config.managementAudience} ${config.issuer}/token`,
      );
    } else {
      lines.push(`  Administrator:   ${admin.adminClientId}`);
    }
    io.stderr.write(`${lines.join('\n')}\n`);
    return issuer;
  } catch (err) {
    await issuer.close();
    throw err;
  }
}
