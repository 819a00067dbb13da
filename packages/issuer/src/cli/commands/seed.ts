/**
 * `gatehouse-issuer seed <file.json>`: load resources, roles, users and applications, idempotently.
 * Secrets generated for new confidential applications are printed once.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../../errors.js';
import type { SeedResult } from '../../seed.js';
import { createIssuer } from '../../server.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** Apply the seed file named by the first positional argument. */
export async function seedCommand(args: ParsedArgs, io: CliIo): Promise<SeedResult> {
  const file = args.positionals[0];
  if (file === undefined)
    throw new ConfigError('seed', 'needs a JSON file: gatehouse-issuer seed <file.json>');
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(resolve(io.cwd, file), 'utf8'));
  } catch (err) {
    throw new ConfigError('seed', `file ${file} cannot be read as JSON: ${(err as Error).message}`);
  }
  const issuer = await createIssuer(configFor(args, io));
  try {
    const result = await issuer.seed(document);
    const summary = (['resources', 'roles', 'users', 'applications'] as const)
      .map((kind) => `${kind}: ${result[kind].created} created, ${result[kind].updated} updated`)
      .join('; ');
    io.stderr.write(`Seeded ${file}: ${summary}\n`);
    for (const generated of result.generatedSecrets) {
      io.stderr.write(
        `  ${generated.name}: client id ${generated.clientId}, secret ${generated.clientSecret} (shown once)\n`,
      );
    }
    return result;
  } finally {
    await issuer.close();
  }
}
