/**
 * `gatehouse-issuer token --pat <value> --resource <indicator> [--scope "a b"] --client-id <id>`:
 * exchange a personal access token at the running issuer (`{baseUrl}/oidc/token`, RFC 8693 with the
 * PAT `subject_token_type`) and print the JWT access token on standard output, so a developer can test
 * an API's server-side validation with curl. The PAT may come from `GATEHOUSE_PAT` and the client id
 * from `GATEHOUSE_CLIENT_ID`; a confidential client's secret is read only from
 * `GATEHOUSE_CLIENT_SECRET`, never from a flag.
 *
 * @module
 */
import { DEFAULTS } from '../../config/defaults.js';
import { ConfigError } from '../../errors.js';
import { TOKEN_EXCHANGE_GRANT_TYPE, TOKEN_TYPES } from '../../grants/token-exchange.js';
import { resolveConfig } from '../../issuer-config.js';
import type { ParsedArgs } from '../args.js';
import { type CliIo, configFor } from '../io.js';

/** What the token endpoint answered. */
export interface TokenResult {
  readonly accessToken: string;
  readonly scope: string;
  readonly expiresIn: number;
}

function need(value: string | undefined, option: string, how: string): string {
  if (value === undefined || value.length === 0) throw new ConfigError(option, `is required (${how})`);
  return value;
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Run the exchange and print the token. */
export async function tokenCommand(args: ParsedArgs, io: CliIo): Promise<TokenResult> {
  const pat = need(args.options.pat ?? io.env.GATEHOUSE_PAT, '--pat', 'or GATEHOUSE_PAT');
  const resource = need(args.options.resource, '--resource', 'the API resource indicator');
  const clientId = need(
    args.options.clientId ?? io.env.GATEHOUSE_CLIENT_ID,
    '--client-id',
    'or GATEHOUSE_CLIENT_ID: an application enabled for token exchange',
  );
  const secret = io.env.GATEHOUSE_CLIENT_SECRET;
  const config = resolveConfig(configFor(args, io));
  const form = new URLSearchParams({
    grant_type: TOKEN_EXCHANGE_GRANT_TYPE,
    subject_token: pat,
    subject_token_type: TOKEN_TYPES.personalAccessToken,
    resource,
  });
  if (args.options.scope !== undefined) form.set('scope', args.options.scope);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (secret === undefined || secret === '') form.set('client_id', clientId);
  else headers.authorization = basic(clientId, secret);
  const url = `${config.issuer}/token`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers,
      body: form,
      signal: AbortSignal.timeout(DEFAULTS.cli.tokenTimeout),
    });
  } catch {
    throw new Error(`cannot reach the issuer at ${url}: is it running (gatehouse-issuer start)?`);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string') {
    const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
    throw new Error(`token exchange failed (${res.status} ${String(body.error ?? 'error')}${description})`);
  }
  const result = {
    accessToken: body.access_token,
    scope: typeof body.scope === 'string' ? body.scope : '',
    expiresIn: Number(body.expires_in),
  };
  io.stdout.write(`${result.accessToken}\n`);
  io.stderr.write(
    `Access token for ${resource} (scope "${result.scope}", expires in ${result.expiresIn} s). Use it as:\n` +
      `  TOKEN=$(gatehouse-issuer token …); curl -H "authorization: Bearer $TOKEN" <your API>\n`,
  );
  return result;
}
