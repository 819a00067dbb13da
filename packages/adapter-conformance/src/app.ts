/**
 * What every framework app of the suite serves, and how it is started. Each framework builds the same
 * routes with its own adapter; the table in `cases.ts` is then sent to all of them.
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
 * | `GET  /roles/one`         | requireAuth; requireRole `admin`                                       |
 * | `GET  /roles/all`         | requireAuth; requireRole `admin auditor` (all)                         |
 * | `GET  /roles/any`         | requireAuth; requireRole `admin auditor` (any)                         |
 * | `GET  /roles/scoped`      | requireAuth; requireScope `read:users`, then requireRole `admin`       |
 * | `GET  /step-up`           | requireAuth; requireScope `read:users` with {@link STEP_UP} (RFC 9470)  |
 * | `POST /form`              | form body parser; requireAuth                                          |
 * | the RFC 9728 document     | served when the setup has `resourceMetadata`                           |
 *
 * Every handler answers `200` with {@link describeAuth} of the request's `AuthInfo`. Every guard gets the
 * setup's `origin`; `trustProxy` turns on the framework's own trust-proxy setting (Express
 * `trust proxy`, Fastify `trustProxy`, Koa `app.proxy`); `tls` serves https and asks for a client
 * certificate without requiring one (the binding, not the TLS handshake, decides).
 *
 * @module
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { ResourceMetadataOptions, Verifier } from '@gatehouse/core';

export { ACR, describeAuth, ROLES, SCOPES, STEP_UP } from './describe.js';

/** The frameworks under test. */
export const FRAMEWORKS = ['express', 'fastify', 'koa', 'nestjs-express', 'nestjs-fastify'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** What one app is built from. */
export interface AppSetup {
  /** The verifier shared by every guard of the app. */
  readonly verifier: Verifier;
  /** RFC 9728 document to serve (the verifier must point at it). */
  readonly resourceMetadata?: ResourceMetadataOptions;
  /** Node's `maxHeaderSize` for the server. Default: Node's (16 KiB). */
  readonly maxHeaderSize?: number;
  /** The adapters' `origin` option (the public origin DPoP proofs must name). Default: none. */
  readonly origin?: string;
  /** Turn on the framework's trust-proxy setting. Default `false`. */
  readonly trustProxy?: boolean;
  /** Serve https with this certificate, asking clients for theirs (`requestCert`, not rejecting any). */
  readonly tls?: ServerCertificate;
}

/** A server certificate and its key, PEM (a `TestCertificate` from `@gatehouse/testing` fits). */
export interface ServerCertificate {
  readonly certificate: string;
  readonly privateKey: string;
}

/** The `node:https` options of a {@link AppSetup.tls} server. */
export function tlsOptions(tls: ServerCertificate) {
  return { cert: tls.certificate, key: tls.privateKey, requestCert: true, rejectUnauthorized: false };
}

/** An http or https server (per `setup.tls`) for a request listener. */
export function createNodeServer(setup: AppSetup, listener: RequestListener): Server {
  const { maxHeaderSize, tls } = setup;
  return tls === undefined
    ? createHttpServer({ maxHeaderSize }, listener)
    : createHttpsServer({ maxHeaderSize, ...tlsOptions(tls) }, listener);
}

/** A listening app. */
export interface RunningApp {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  close(): Promise<void>;
}

/** Listen on a random loopback port. */
export async function listen(server: Server): Promise<RunningApp> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const scheme = server instanceof TlsServer ? 'https' : 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
