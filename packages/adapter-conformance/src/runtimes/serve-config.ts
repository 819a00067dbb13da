/**
 * What a runtime server process (Bun, Deno, workerd) is told, as JSON: which app to serve, and per
 * variant the verifier options and adapter settings a Node deployment of the suite gets. No Node
 * built-in, so every runtime imports it.
 *
 * @module
 */
import { createVerifier, type ResourceMetadataOptions, type VerifierOptions } from '@gatehouse/core';
import { createFetchHandler } from '../fetch-app.js';
import { createHonoApp } from '../hono-app.js';

/**
 * The app a runtime serves: Hono with `@gatehouse/hono` (`hono-one-layer`: each route requirement in
 * one middleware, `auth.requireScope()`), or the plain fetch handler.
 */
export type RuntimeApp = 'hono' | 'hono-one-layer' | 'fetch';

/** One variant's deployment: a verifier and the app's settings (JSON, so no `fetch` function). */
export interface VariantServeConfig {
  readonly variant: string;
  readonly verifier: VerifierOptions;
  readonly origin?: string;
  readonly resourceMetadata?: ResourceMetadataOptions;
}

/** Everything a runtime process serves. */
export interface ServeConfig {
  readonly app: RuntimeApp;
  readonly variants: readonly VariantServeConfig[];
}

/** The fetch function of one variant's app. */
export function handlerFor(
  app: RuntimeApp,
  config: VariantServeConfig,
): (request: Request) => Promise<Response> {
  const verifier = createVerifier(config.verifier);
  const setup = { verifier, origin: config.origin, resourceMetadata: config.resourceMetadata };
  if (app === 'fetch') {
    const handle = createFetchHandler(setup);
    return (request) => handle(request);
  }
  const hono = createHonoApp({ ...setup, oneLayer: app === 'hono-one-layer' });
  return async (request) => hono.fetch(request);
}

/** The line a runtime process prints per listening variant: `LISTENING <variant> <port>`. */
export const listeningLine = (variant: string, port: number): string => `LISTENING ${variant} ${port}`;
