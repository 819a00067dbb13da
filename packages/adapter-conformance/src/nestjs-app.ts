/**
 * The suite's routes on NestJS 12 with `@gatehouse/nestjs`, on both of Nest's HTTP platforms: one
 * controller, guarded by the module's global guard, and the platform's own body parsers (Nest parses
 * form bodies before guards run).
 *
 * On Express the app is initialized and served by the suite's own Node server (for `maxHeaderSize`
 * and TLS, as the Express target does); on Fastify, Nest listens with the server options passed to
 * Fastify (as the Fastify target does).
 *
 * @module
 */
import type { AuthInfo } from '@gatehouse/core';
import { Auth, GatehouseModule, NoDelegation, Public, RequireRole, RequireScope } from '@gatehouse/nestjs';
import { Controller, type DynamicModule, Get, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  type AppSetup,
  createNodeServer,
  describeAuth,
  listen,
  ROLES,
  type RunningApp,
  SCOPES,
  STEP_UP,
  tlsOptions,
} from './app.js';

@Controller()
class SuiteController {
  @Get('me')
  me(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('optional')
  @Public()
  optional(@Auth() auth: AuthInfo | undefined) {
    return describeAuth(auth);
  }

  @Get('optional/scoped')
  @Public()
  @RequireScope(SCOPES.one)
  optionalScoped(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('scoped/one')
  @RequireScope(SCOPES.one)
  scopedOne(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('scoped/all')
  @RequireScope(...SCOPES.pair)
  scopedAll(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('scoped/any')
  @RequireScope(...SCOPES.pair, { mode: 'any' })
  scopedAny(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('no-delegation')
  @NoDelegation()
  noDelegation(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('no-delegation/scoped')
  @RequireScope(SCOPES.one, { allowDelegation: false })
  noDelegationScoped(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('roles/one')
  @RequireRole(ROLES.one)
  rolesOne(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('roles/all')
  @RequireRole(...ROLES.pair)
  rolesAll(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('roles/any')
  @RequireRole(...ROLES.pair, { mode: 'any' })
  rolesAny(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('roles/scoped')
  @RequireScope(SCOPES.one)
  @RequireRole(ROLES.one)
  rolesScoped(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('step-up')
  @RequireScope(SCOPES.one, STEP_UP)
  stepUp(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Post('form')
  @HttpCode(200)
  form(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }
}

@Module({})
class SuiteModule {}

/** The root module of one deployment: the suite's controller behind the setup's verifier. */
function suiteModule(setup: AppSetup): DynamicModule {
  const { verifier, resourceMetadata, origin } = setup;
  return {
    module: SuiteModule,
    imports: [GatehouseModule.forRoot({ verifier, resourceMetadata, origin })],
    controllers: [SuiteController],
  };
}

/** Start the suite's app on NestJS with the Express platform. */
export async function startNestExpress(setup: AppSetup): Promise<RunningApp> {
  const app = await NestFactory.create(suiteModule(setup), new ExpressAdapter(), { logger: false });
  if (setup.trustProxy === true) app.getHttpAdapter().getInstance().set('trust proxy', true);
  await app.init();
  const running = await listen(createNodeServer(setup, app.getHttpAdapter().getInstance()));
  return {
    url: running.url,
    close: async () => {
      await running.close();
      await app.close();
    },
  };
}

/** Start the suite's app on NestJS with the Fastify platform. */
export async function startNestFastify(setup: AppSetup): Promise<RunningApp> {
  const { maxHeaderSize, tls } = setup;
  const adapter = new FastifyAdapter({
    ...(tls === undefined ? { http: { maxHeaderSize } } : { https: { maxHeaderSize, ...tlsOptions(tls) } }),
    trustProxy: setup.trustProxy === true,
  });
  const app = await NestFactory.create(suiteModule(setup), adapter, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = new URL(await app.getUrl());
  url.hostname = '127.0.0.1';
  return { url: url.origin, close: () => app.close() };
}
