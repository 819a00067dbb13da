/**
 * Bun entry of the suite: one `Bun.serve` per variant, on loopback, from the JSON config in argv[2].
 * Run from source by Bun itself, so `@gatehouse/core` resolves through its `bun` export condition.
 *
 * @module
 */
import { handlerFor, listeningLine, type ServeConfig } from './serve-config.js';

declare const Bun: {
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): {
    port: number;
  };
};
declare const process: { argv: string[] };

const config = JSON.parse(process.argv[2]!) as ServeConfig;
for (const variant of config.variants) {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handlerFor(config.app, variant) });
  console.log(listeningLine(variant.variant, server.port));
}
