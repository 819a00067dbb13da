/**
 * Deno entry of the suite: one `Deno.serve` per variant, on loopback, from the JSON config in
 * `Deno.args[0]`. Bundled for Deno (`deno` export condition) before it runs.
 *
 * @module
 */
import { handlerFor, listeningLine, type ServeConfig } from './serve-config.js';

declare const Deno: {
  args: string[];
  serve(
    options: { hostname: string; port: number; onListen(address: { port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const config = JSON.parse(Deno.args[0]!) as ServeConfig;
for (const variant of config.variants) {
  Deno.serve(
    {
      hostname: '127.0.0.1',
      port: 0,
      onListen: ({ port }) => console.log(listeningLine(variant.variant, port)),
    },
    handlerFor(config.app, variant),
  );
}
