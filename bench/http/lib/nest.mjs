/**
 * NestJS 12 servers under test, on either of Nest's HTTP platforms: bare (no guard), a no-op guard, a
 * hand-written jose guard, and `@gatehouse/nestjs` (cache off / on). Plain JavaScript, so the decorators are applied as
 * the calls a TypeScript compiler would emit.
 *
 * Nest is loaded from `packages/nestjs`'s dependencies, next to the built `@gatehouse/nestjs`, so the app
 * and the module share one copy of `@nestjs/common` and `@nestjs/core` (as in an app that installs them).
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { SUBJECT } from './issuer.mjs';
import { createJoseGuard } from './jose-guard.mjs';
import { gatehouseDist } from './paths.mjs';

const dist = gatehouseDist('nestjs');
const resolve = createRequire(dist).resolve;
const load = (name) => import(pathToFileURL(resolve(name)).href);

/**
 * name → kind, as in the other apps (run.mjs). No peer library exists for NestJS. Besides these,
 * `nest-noop` (a global guard that lets everything through) is a baseline of nestjs.mjs.
 */
export const CONFIGS = {
  bare: 'bare',
  jose: 'jose',
  gatehouse: 'gatehouse',
  'gatehouse-cached': 'gatehouse-cached',
};

/** `GET /orders` answering `{ ok: true, sub }`, guarded per `config`. */
async function appModule(config, { issuer, audience, jwksUri, alg, scope }) {
  const { Controller, Get, HttpException, Module, Req } = await load('@nestjs/common');
  const { APP_GUARD } = await load('@nestjs/core');
  const gatehouse = await import(dist);

  class Orders {
    list(req) {
      return { ok: true, sub: req.auth?.subject ?? req.payload?.sub ?? SUBJECT };
    }
  }
  const list = Object.getOwnPropertyDescriptor(Orders.prototype, 'list');
  Req()(Orders.prototype, 'list', 0);
  Get()(Orders.prototype, 'list', list);
  if (config.startsWith('gatehouse')) gatehouse.RequireScope(scope)(Orders.prototype, 'list', list);
  Controller('orders')(Orders);

  class Bench {}
  Module({})(Bench);
  const module = { module: Bench, controllers: [Orders], imports: [], providers: [] };
  switch (config) {
    case 'bare':
      break;
    case 'nest-noop':
      // A global guard that lets everything through: what having any guard costs in Nest (the ceiling
      // for an auth guard), as hono-noop is for Hono.
      module.providers.push({ provide: APP_GUARD, useValue: { canActivate: () => true } });
      break;
    case 'jose': {
      const verify = createJoseGuard({ issuer, audience, jwksUri, alg, scope });
      const guard = {
        async canActivate(context) {
          const req = context.switchToHttp().getRequest();
          try {
            req.payload = await verify(req.headers.authorization);
          } catch (error) {
            throw new HttpException({ error: error.code }, error.status);
          }
          return true;
        },
      };
      module.providers.push({ provide: APP_GUARD, useValue: guard });
      break;
    }
    case 'gatehouse':
    case 'gatehouse-cached': {
      const cache = config === 'gatehouse' ? { cache: false } : {};
      module.imports.push(
        gatehouse.GatehouseModule.forRoot({ issuer, audience, jwksUri, algorithms: [alg], ...cache }),
      );
      break;
    }
    default:
      throw new Error(`unknown nestjs config ${config}`);
  }
  return module;
}

/**
 * Build the app on `platform` (`express` or `fastify`), initialised but not listening (the in-process
 * benchmark, nestjs-micro.mjs, feeds its HTTP server's request listener directly).
 */
export async function createNest(platform, config, options) {
  const { NestFactory } = await load('@nestjs/core');
  const adapter =
    platform === 'express'
      ? new (await load('@nestjs/platform-express')).ExpressAdapter()
      : new (await load('@nestjs/platform-fastify')).FastifyAdapter();
  const app = await NestFactory.create(await appModule(config, options), adapter, { logger: false });
  await app.init();
  return app;
}

/** Build the app on `platform` (`express` or `fastify`) and listen on an ephemeral loopback port. */
export async function startNest(platform, config, options) {
  const app = await createNest(platform, config, options);
  await app.listen(0, '127.0.0.1');
  return app.getHttpServer().address().port;
}
