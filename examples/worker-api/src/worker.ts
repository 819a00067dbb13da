/**
 * The orders API (examples/hono-api's Hono app) as a Cloudflare Worker, run here by `workerd`. The
 * bundle takes `@gatehouse/core` through its `workerd` export condition: the WebCrypto build, with
 * no Node built-in and no `nodejs_compat` flag.
 *
 * Settings are the Worker's bindings: `ISSUER`, `AUDIENCE`, and optionally `JWKS_URI` and
 * `ALLOW_INSECURE_HTTP` (`"1"`, a local development issuer only). The app — and with it the verifier
 * and its key cache — is built once per isolate, at the first request.
 *
 * @module
 */
import type { Hono } from 'hono';
import { createApp } from '../../hono-api/src/app.ts';

/** The Worker's bindings. */
export interface Env {
  readonly ISSUER: string;
  readonly AUDIENCE: string;
  readonly JWKS_URI?: string;
  readonly ALLOW_INSECURE_HTTP?: string;
}

let app: Hono | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    app ??= createApp({
      issuer: env.ISSUER,
      audience: env.AUDIENCE,
      ...(env.JWKS_URI ? { jwksUri: env.JWKS_URI } : {}),
      ...(env.ALLOW_INSECURE_HTTP === '1' ? { allowInsecureHttp: true } : {}),
    });
    return app.fetch(request);
  },
};
