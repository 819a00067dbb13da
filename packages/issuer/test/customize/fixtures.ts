/** A custom-claims module whose behaviour is picked per call (subject-token context `mode`, or DEFAULT_MODE). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCE = `
export async function getCustomJwtClaims({ token, context, environmentVariables, api }) {
  const mode = context.grant.subjectTokenContext?.mode ?? environmentVariables.DEFAULT_MODE ?? 'ok';
  switch (mode) {
    case 'ok':
      return {
        tenant: environmentVariables.TENANT,
        grantType: context.grant.type,
        ticket: context.grant.subjectTokenContext?.ticketId ?? null,
        user: context.user && { id: context.user.id, roles: context.user.roles.map((r) => r.name), keys: Object.keys(context.user).sort() },
        app: context.application && { id: context.application.id, keys: Object.keys(context.application).sort() },
        seen: { sub: token.sub, act: token.act ?? null, aud: token.aud, scope: token.scope ?? null },
      };
    case 'empty': return {};
    case 'reserved':
      return { sub: 'x', iss: 'x', aud: 'x', exp: 1, iat: 1, jti: 'x', client_id: 'x', scope: 'admin', act: { sub: 'evil' },
        may_act: { sub: 'evil' }, cnf: { jkt: 'x' }, nbf: 9999999999, azp: 'x', kept: true };
    case 'hang': for (;;) {}
    case 'never': return new Promise(() => {});
    case 'throw': throw new Error('secret-stack-' + environmentVariables.TENANT);
    case 'string': return 'nope';
    case 'array': return [1];
    case 'null': return null;
    case 'undefined': return undefined;
    case 'cycle': { const a = { x: 1 }; a.self = a; return a; }
    case 'bigint': return { n: 10n };
    case 'large': return { blob: 'x'.repeat(70000) };
    case 'proto': return JSON.parse('{"__proto__":{"admin":true},"nested":{"__proto__":{"admin":true},"y":2},"constructor":{"x":1},"prototype":1,"ok":1}');
    case 'proto-literal': return { __proto__: { admin: true }, ok: 2 };
    case 'env': return { envKeys: Object.keys(process.env), secret: process.env.GATEHOUSE_TEST_SECRET ?? null, tenant: environmentVariables.TENANT };
    case 'deny': api.denyAccess('ticket "T-1" is closed\\n');
    case 'deny-caught': try { api.denyAccess('blocked') } catch {} return { x: 1 };
    case 'oom': { const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random())); }
    case 'exit': process.exit(3);
    case 'async-crash': setTimeout(() => { throw new Error('boom-' + environmentVariables.TENANT); }, 0); return new Promise(() => {});
    case 'slow': await new Promise((resolve) => setTimeout(resolve, 150)); return { slow: true };
    default: throw new Error('unknown mode');
  }
}
`;

/** Write the module (and a broken one) into a fresh directory; returns their paths. */
export function writeClaimsModules(): { module: string; noExport: string; syntaxError: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-claims-'));
  const module = join(dir, 'claims.mjs');
  writeFileSync(module, SOURCE);
  const noExport = join(dir, 'no-export.mjs');
  writeFileSync(noExport, 'export const something = 1;\n');
  const syntaxError = join(dir, 'syntax.mjs');
  writeFileSync(syntaxError, 'export function getCustomJwtClaims( {\n');
  return { module, noExport, syntaxError };
}
