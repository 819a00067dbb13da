/**
 * The NestJS samples of docs/adapters.md, answering real requests on both of Nest's platforms. The
 * issuer they name, `https://id.example.com/oidc`, is the docs' example issuer (msw serves its keys).
 */
// biome-ignore-all assist/source/organizeImports: the import of the docs' sample stays on one line
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@gatehouse/core';
import { Auth, GatehouseModule, NoDelegation, Public, RequireScope } from '@gatehouse/nestjs';
import { GatehouseException, GatehouseGuard } from '@gatehouse/nestjs';
import { Controller, Get, Module, Post } from '@nestjs/common';
import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  Injectable,
  type INestApplication,
} from '@nestjs/common';
import { type Type, UseGuards } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from '../../demo/test/docs/example-issuer.ts';

const issuer = await useExampleIssuer();

// docs/adapters.md, "NestJS 12":
@Controller('orders')
export class OrdersController {
  @Get()
  @RequireScope('read:orders')
  list(@Auth() auth: AuthInfo) {
    return { orders: [], for: auth.subject };
  }

  @Get('catalogue')
  @Public()
  catalogue(@Auth('subject') subject: string | undefined) {
    return { items: [], personalisedFor: subject ?? null };
  }

  @Post('refunds')
  @RequireScope('orders:admin', 'refunds:create', { mode: 'any' })
  @NoDelegation()
  refund() {
    return { refunded: true };
  }
}

@Module({
  imports: [
    GatehouseModule.forRoot({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }),
  ],
  controllers: [OrdersController],
})
export class AppModule {}

// docs/adapters.md, configuration from other providers:
@Injectable()
class Settings {
  readonly issuer = 'https://id.example.com/oidc';
  readonly audience = 'https://api.example.com';
}
@Module({ providers: [Settings], exports: [Settings] })
class SettingsModule {}

@Controller('reports')
@UseGuards(GatehouseGuard)
class ReportsController {
  @Get()
  @RequireScope('reports:read')
  list(@Auth('subject') subject: string | undefined) {
    return { reports: [], for: subject };
  }
}

@Controller('status')
class StatusController {
  @Get()
  status() {
    return { up: true };
  }
}

@Module({
  imports: [
    GatehouseModule.forRootAsync({
      imports: [SettingsModule],
      inject: [Settings],
      useFactory: (settings: Settings) => ({ issuer: settings.issuer, audience: settings.audience }),
      globalGuard: false, // guard only what says @UseGuards(GatehouseGuard)
    }),
  ],
  controllers: [ReportsController, StatusController],
})
class ReportingModule {}

// docs/adapters.md, taking over error formatting:
@Catch(GatehouseException)
class ProblemDetails implements ExceptionFilter {
  catch(exception: GatehouseException, host: ArgumentsHost) {
    const response = host.switchToHttp().getResponse();
    response
      .status(exception.getStatus())
      .set(exception.headers)
      .json({ type: 'about:blank', title: exception.authError.description, status: exception.getStatus() });
  }
}

@Module({
  imports: [
    GatehouseModule.forRoot({
      issuer: 'https://id.example.com/oidc',
      audience: 'https://api.example.com',
      handleErrors: false,
    }),
  ],
  controllers: [OrdersController],
  providers: [{ provide: APP_FILTER, useClass: ProblemDetails }],
})
class ProblemDetailsModule {}

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function listen(app: INestApplication): Promise<string> {
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
}

async function startOn(platform: 'express' | 'fastify', module: Type = AppModule): Promise<string> {
  const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
  return listen(await NestFactory.create(module, adapter, { logger: false }));
}

const get = async (url: string, token?: string, method = 'GET') => {
  const res = await fetch(url, { method, headers: token === undefined ? {} : bearer(token) });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.json() };
};

describe.each(['express', 'fastify'] as const)('NestJS samples on %s', (platform) => {
  it('protect every route by default: 200 with read:orders, 403 without it, 401 without a token', async () => {
    const url = await startOn(platform);
    const token = await issuer.sign({ sub: 'customer-42', scope: 'read:orders' });
    expect(await get(`${url}/orders`, token)).toMatchObject({
      status: 200,
      body: { orders: [], for: 'customer-42' },
    });
    const denied = await get(`${url}/orders`, await issuer.sign({ scope: 'profile' }));
    expect(denied.status).toBe(403);
    expect(denied.challenge).toContain('error="insufficient_scope", error_description=');
    expect(denied.challenge).toContain('scope="read:orders"');
    const anonymous = await get(`${url}/orders`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.challenge).toBe('Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"');
  });

  it('@Public(): anonymous callers get the catalogue, signed-in ones a personalised one', async () => {
    const url = await startOn(platform);
    expect((await get(`${url}/orders/catalogue`)).body).toEqual({ items: [], personalisedFor: null });
    const signedIn = await get(`${url}/orders/catalogue`, await issuer.sign({ sub: 'customer-42' }));
    expect(signedIn.body).toEqual({ items: [], personalisedFor: 'customer-42' });
  });

  it('refunds: one of the scopes, and never under impersonation', async () => {
    const url = await startOn(platform);
    const admin = await issuer.sign({ sub: 'customer-42', scope: 'refunds:create' });
    expect(await get(`${url}/orders/refunds`, admin, 'POST')).toMatchObject({ status: 201 });
    const support = await issuer.impersonation('support-7', { sub: 'customer-42', scope: 'refunds:create' });
    expect(await get(`${url}/orders/refunds`, support, 'POST')).toMatchObject({
      status: 403,
      body: { error: 'access_denied' },
    });
  });
});

describe('NestJS samples: module options', () => {
  it('forRootAsync with globalGuard: false guards only @UseGuards(GatehouseGuard)', async () => {
    const url = await listen(
      await NestFactory.create(ReportingModule, new ExpressAdapter(), { logger: false }),
    );
    expect((await get(`${url}/status`)).body).toEqual({ up: true });
    expect((await get(`${url}/reports`)).status).toBe(401);
    const token = await issuer.sign({ sub: 'analyst-1', scope: 'reports:read' });
    expect((await get(`${url}/reports`, token)).body).toEqual({ reports: [], for: 'analyst-1' });
  });

  it('handleErrors: false hands the GatehouseException to the app’s filter', async () => {
    const url = await startOn('express', ProblemDetailsModule);
    const res = await get(`${url}/orders`);
    expect(res).toEqual({
      status: 401,
      challenge: 'Bearer realm="api", DPoP realm="api", algs="ES256 EdDSA RS256 PS256"',
      body: { type: 'about:blank', title: 'No access token was provided', status: 401 },
    });
  });
});
