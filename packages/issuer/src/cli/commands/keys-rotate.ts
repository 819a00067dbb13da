/**
 * `gatehouse-issuer keys rotate`: store a new active signing key. A running issuer on the same
 * database picks it up within `keys.reloadInterval` seconds; the previous key stays in the JWKS for
 * `keys.gracePeriod` seconds.
 *
 * @module
 */
import type { SigningKeyInfo } from '../../keys.js';
import { createIssuer } from '../../server.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** Rotate and report the new key. */
export async function keysRotate(args: ParsedArgs, io: CliIo): Promise<SigningKeyInfo> {
  const issuer = await createIssuer(configFor(args, io));
  try {
    const key = await issuer.rotateKeys();
    io.stderr.write(
      `New signing key ${key.kid} (${key.alg}) is active; the previous key stays published for ${issuer.config.keys.gracePeriod} s.\n`,
    );
    io.stdout.write(`${JSON.stringify({ kid: key.kid, alg: key.alg })}\n`);
    return key;
  } finally {
    await issuer.close();
  }
}
