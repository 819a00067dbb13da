/**
 * What a failed first connection to PostgreSQL means, in one line a person can act on. `pg` reports
 * Node's socket errors (`ECONNREFUSED`, `ENOTFOUND`, a timeout) and the server's SQLSTATEs
 * (`3D000` no such database, `28P01` / `28000` refused authentication) as they are; the message names
 * the host, port, database or user it was about, and the part of the URL to check — never the password.
 *
 * @module
 */
import { DatabaseConnectionError, type DatabaseConnectionReason } from '../../errors.js';
import { describeDatabase } from '../database-url.js';

const SSL_CODES =
  /^(?:ERR_SSL_|ERR_TLS_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT|UNABLE_TO_VERIFY|CERT_)/;

/**
 * The error to throw for `err`, a failure to connect to `url` (or to use its first connection); `err`
 * itself when it is not about connecting (a failing statement).
 *
 * @example
 * ```ts
 * try { await pool.connect(); } catch (err) { throw connectionError(url, err); }
 * ```
 */
export function connectionError(url: string, err: unknown): unknown {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  const target = URL.parse(url);
  const host = target?.hostname || 'localhost';
  const at = `${host}:${target?.port || '5432'}`;
  const database = decodeURIComponent(target?.pathname.slice(1) ?? '') || 'the default database';
  const user = decodeURIComponent(target?.username ?? '') || 'the default user';
  const make = (reason: DatabaseConnectionReason, detail: string) =>
    new DatabaseConnectionError(describeDatabase(url), reason, detail, { cause: err });
  switch (true) {
    case code === 'ECONNREFUSED':
      return make(
        'refused',
        `connection refused at ${at} — is PostgreSQL running and listening there? Check the host and port of the database URL.`,
      );
    case code === 'ENOTFOUND' || code === 'EAI_AGAIN':
      return make('host_not_found', `host ${host} not found — check the host name of the database URL.`);
    case code === 'ETIMEDOUT' || /timeout/i.test(text):
      return make(
        'timeout',
        `no connection to ${at} in time — is the host reachable from here (firewall, network), and the port right?`,
      );
    case code === '3D000':
      return make(
        'database_missing',
        `database "${database}" does not exist on ${at} — create it (createdb ${database}) or correct the name at the end of the database URL.`,
      );
    case code === '28P01' || code === '28000':
      return make(
        'authentication',
        `PostgreSQL refused user "${user}" (${code === '28P01' ? 'wrong password' : 'no such user, or pg_hba.conf refuses it'}) — check the user and password of the database URL.`,
      );
    case typeof code === 'string' && SSL_CODES.test(code):
    case /\b(?:SSL|TLS)\b/.test(text):
      return make(
        'tls',
        `the TLS connection to ${at} failed (${typeof code === 'string' ? code : 'TLS'}) — check sslmode in the database URL, and NODE_EXTRA_CA_CERTS for a private CA.`,
      );
    case code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH':
      return make(
        'other',
        `the connection to ${at} failed (${String(code)}) — is the host reachable from here?`,
      );
    default:
      return err;
  }
}
