/**
 * Start the orders API on Bun (settings: config.ts): `bun src/server-bun.ts` (or `pnpm start:bun`).
 * Bun resolves `@gatehouse/core` through its `bun` export condition: the WebCrypto build.
 *
 * @module
 */
import { createApp } from './app.ts';
import { readConfig } from './config.ts';

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    fetch: (request: Request) => Response | Promise<Response>;
  }): {
    port: number;
  };
};

const { port, host, ...options } = readConfig(process.env);
const server = Bun.serve({ port, hostname: host, fetch: createApp(options).fetch });
console.log(`orders API (Hono on Bun) listening on http://${host}:${server.port}`);
