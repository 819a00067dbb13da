/**
 * What every framework app of the suite serves, and how it is started. Each framework builds the same
 * routes with its own adapter; the table in `cases.ts` is then sent to all three.
 *
 * | route                     | guard                                                                  |
 * | ------------------------- | ---------------------------------------------------------------------- |
 * | `GET  /me`                | requireAuth                                                            |
 * | `GET  /optional`          | requireAuth, anonymous allowed                                         |
 * | `GET  /optional/scoped`   | requireAuth, anonymous allowed; requireScope `read:users`              |
 * | `GET  /scoped/one`        | requireAuth; requireScope `read:users`                                 |
 * | `GET  /scoped/all`        | requireAuth; requireScope `read:users write:users` (all)               |
 * | `GET  /scoped/any`        | requireAuth; requireScope `read:users write:users` (any)               |
 * | `GET  /no-delegation`     | requireAuth refusing delegated tokens                                  |
 * | `GET  /no-delegation/scoped` | requireAuth; requireScope `read:users`, refusing delegated tokens   |
 * | `POST /form`              | form body parser; requireAuth                                          |
 * | the RFC 9728 document     | served when the setup has `resourceMetadata`                           |
 *
 * Every handler answers `200` with {@link describeAuth} of the request's `AuthInfo`.
 *
 * @module
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo, ResourceMetadataOptions, Verifier } from '@gatehouse/core';

/** The frameworks under test. */
export const FRAMEWORKS = ['express', 'fastify', 'koa'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** What one app is built from. */
export interface AppSetup {
  /** The verifier shared by every guard of the app. */
  readonly verifier: Verifier;
  /** RFC 9728 document to serve (the verifier must point at it). */
  readonly resourceMetadata?: ResourceMetadataOptions;
  /** Node's `maxHeaderSize` for the server. Default: Node's (16 KiB). */
  readonly maxHeaderSize?: number;
}

/** A listening app. */
export interface RunningApp {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  close(): Promise<void>;
}

/** Scopes the scoped routes require. */
export const SCOPES = Object.freeze({
  one: 'read:users',
  pair: Object.freeze(['read:users', 'write:users']),
});

/** The JSON body every route answers with. */
export function describeAuth(auth: AuthInfo | undefined): Record<string, unknown> {
  if (auth === undefined) return { anonymous: true };
  return {
    subject: auth.subject ?? null,
    scopes: auth.scopes,
    delegated: auth.delegated,
    actor: auth.actor?.sub ?? null,
  };
}

/** Listen on a random loopback port. */
export async function listen(server: Server): Promise<RunningApp> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
