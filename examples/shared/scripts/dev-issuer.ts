/**
 * A throwaway authorization server for trying the example with curl: a `@gatehouse/testing` issuer on
 * loopback (discovery + JWKS), plus three one-hour tokens for `customer-42`. The tokens are written to a
 * file to `source`, never printed. Stop it with Ctrl-C.
 *
 * Run: `pnpm dev-issuer` in any example API (after `pnpm start` has built the packages once, or `pnpm build`
 * at the root); every example runs this one script.
 *
 * @module
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestIssuer } from '@gatehouse/testing';

const port = Number(process.env.ISSUER_PORT ?? 4900);
const audience = process.env.AUDIENCE ?? 'https://api.example.com';
const issuer = await createTestIssuer({ issuer: `http://127.0.0.1:${port}/oidc`, audience });
const server = await issuer.listen();
const hour = { expiresIn: 3600 };
const customer = { sub: 'customer-42' };

const file = join(tmpdir(), 'gatehouse-example.env');
const lines = [
  `export ISSUER=${server.issuer}`,
  `export AUDIENCE=${audience}`,
  `export READ_TOKEN=${await issuer.sign({ ...customer, scope: 'read:orders' }, hour)}`,
  `export WRITE_TOKEN=${await issuer.sign({ ...customer, scope: 'read:orders write:orders' }, hour)}`,
  `export SUPPORT_TOKEN=${await issuer.impersonation('support-7', { ...customer, scope: 'read:orders write:orders' }, hour)}`,
];
writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });

console.log(`test issuer on ${server.issuer} (JWKS ${server.jwksUri})`);
console.log(`tokens written to ${file}: run  source ${file}`);
const keepAlive = setInterval(() => {}, 60_000);
process.once('SIGINT', () => {
  clearInterval(keepAlive);
  server.close();
});
