/**
 * The orders API on NestJS 12, protected by `@gatehouse/nestjs`, on Nest's Express or Fastify platform:
 *
 * - `GET /health`: no token needed (`@Public()`).
 * - `GET /orders`: scope `read:orders`.
 * - `POST /orders`: scope `write:orders`, JSON body `{ item, quantity }` (400 JSON when invalid).
 * - `DELETE /orders/:id`: scope `write:orders`, and never under impersonation (403 `access_denied`).
 *
 * The module's guard protects every route; requests made under impersonation are written to the audit
 * log, refused ones included.
 *
 * @module
 */

import type { Logger } from '@gatehouse/example-shared/audit';
import { OrderStore } from '@gatehouse/example-shared/orders';
import { GatehouseModule } from '@gatehouse/nestjs';
import { type DynamicModule, type INestApplication, Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ApiExceptionFilter } from './errors.filter.ts';
import { HealthController } from './health.controller.ts';
import { OrdersController } from './orders.controller.ts';
import { LOGGER, STORE } from './tokens.ts';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** Issuer identifier of the authorization server (`iss`). */
  issuer: string;
  /** Resource indicator of this API (`aud`). */
  audience: string | string[];
  /** JWKS URL. Default: discovered from the issuer's metadata. */
  jwksUri?: string;
  /** `fetch` for discovery and the JWKS (tests pass `issuer.fetch` from `@gatehouse/testing`). */
  fetch?: typeof fetch;
  /** Where audit and error lines go. Default `console`. */
  logger?: Logger;
  /** Nest's HTTP platform. Default `express`. */
  platform?: 'express' | 'fastify';
}

/** Largest accepted body, in bytes. */
const BODY_LIMIT = 16 * 1024;

@Module({})
class AppModule {}

function appModule(options: AppOptions): DynamicModule {
  const { logger = console, issuer, audience, jwksUri, fetch } = options;
  return {
    module: AppModule,
    imports: [
      GatehouseModule.forRoot({
        issuer,
        audience,
        ...(jwksUri === undefined ? {} : { jwksUri }),
        ...(fetch === undefined ? {} : { fetch }),
      }),
    ],
    controllers: [HealthController, OrdersController],
    providers: [
      { provide: LOGGER, useValue: logger },
      { provide: STORE, useValue: new OrderStore() },
      { provide: APP_FILTER, useClass: ApiExceptionFilter },
    ],
  };
}

/**
 * Build the orders API, initialized but not listening. Each call has its own in-memory store and its
 * own verifier (key cache). Options are checked here: a bad one rejects with a `TypeError` naming it.
 *
 * @example
 * ```ts
 * import { createApp } from './app.ts';
 *
 * const app = await createApp({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' });
 * await app.listen(4004, '127.0.0.1');
 * ```
 */
export async function createApp(options: AppOptions): Promise<INestApplication> {
  const module = appModule(options);
  const app =
    options.platform === 'fastify'
      ? await NestFactory.create(module, new FastifyAdapter({ bodyLimit: BODY_LIMIT }), { logger: false })
      : await NestFactory.create(module, new ExpressAdapter(), { logger: false, bodyParser: false });
  if (options.platform !== 'fastify') {
    const express = app.getHttpAdapter() as ExpressAdapter;
    express.getInstance().disable('x-powered-by');
    express.useBodyParser('json', false, { limit: BODY_LIMIT });
  }
  return app.init();
}
