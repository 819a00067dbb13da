import {
  type AuthInfo,
  createVerifier,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  MissingTokenError,
  type Verifier,
} from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  Inject,
  Module,
  Req,
  UseGuards,
} from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  Auth,
  type AuthenticatedRequest,
  GATEHOUSE_VERIFIER,
  GatehouseException,
  GatehouseGuard,
  GatehouseModule,
  type GatehouseModuleOptions,
  NoDelegation,
  Public,
  RequireScope,
} from '../src/index.js';
import { closeAll, get, PLATFORMS, type Platform, start } from './helpers.js';

const AUDIENCE = 'https://api.gatehouse.test';
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
});
afterEach(closeAll);

const describeAuth = (auth: AuthInfo | undefined) =>
  auth === undefined ? { anonymous: true } : { subject: auth.subject, scopes: auth.scopes };

@Controller()
class ProtectedController {
  @Get('me')
  me(
    @Auth() auth: AuthInfo,
    @Auth('subject') subject: string | undefined,
    @Req() request: AuthenticatedRequest,
  ) {
    return { ...describeAuth(auth), subject, same: request.auth === auth };
  }

  @Get('maybe')
  @Public()
  maybe(@Auth() auth: AuthInfo | undefined) {
    return describeAuth(auth);
  }

  @Get('self-service')
  @NoDelegation()
  selfService(@Auth('actor') actor: AuthInfo['actor']) {
    return { actor: actor ?? null };
  }
}

@Controller('orders')
@RequireScope('read:orders')
class OrdersController {
  @Get()
  list(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }

  @Get('admin')
  @RequireScope('orders:admin', 'orders:write', { mode: 'any' })
  admin(@Auth() auth: AuthInfo) {
    return describeAuth(auth);
  }
}

@Controller('archive')
class ArchiveController extends OrdersController {}

@Module({})
class TestModule {}

function testModule(options: Partial<GatehouseModuleOptions> = {}, extra: object = {}) {
  return {
    module: TestModule,
    imports: [
      GatehouseModule.forRoot({ ...issuer.verifierOptions(), fetch: issuer.fetch, ...options } as never),
    ],
    controllers: [ProtectedController, OrdersController, ArchiveController],
    ...extra,
  };
}

/** The verifier's challenge context, to build the error core would raise. */
async function contextOf(platform: Platform) {
  const { app } = await start(platform, testModule());
  return app.get<Verifier>(GATEHOUSE_VERIFIER).context;
}

describe.each(PLATFORMS)('GatehouseGuard on %s', (platform) => {
  it('verifies the token, sets request.auth and gives it to @Auth()', async () => {
    const { url } = await start(platform, testModule());
    const res = await get(`${url}/me`, await issuer.sign({ sub: 'alice', scope: 'read:orders' }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ subject: 'alice', scopes: ['read:orders'], same: true });
  });

  it('guards every route by default: 401 with a bare challenge and core’s JSON body without a token', async () => {
    const context = await contextOf(platform);
    const { url } = await start(platform, testModule());
    const res = await get(`${url}/me`);
    const expected = new MissingTokenError(context);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
    expect(await res.text()).toBe(JSON.stringify(expected.toJSON()));
  });

  it('answers 401 invalid_token for an expired token', async () => {
    const context = await contextOf(platform);
    const { url } = await start(platform, testModule());
    const res = await get(`${url}/me`, await issuer.tokens.expired());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      new InvalidTokenError('expired', context).wwwAuthenticate,
    );
    expect(await res.json()).toEqual(new InvalidTokenError('expired', context).toJSON());
  });

  it('A25: @Public(): an anonymous request passes, a token is still verified and a bad one refused', async () => {
    const { url } = await start(platform, testModule());
    expect(await (await get(`${url}/maybe`)).json()).toEqual({ anonymous: true });
    const ok = await get(`${url}/maybe`, await issuer.sign({ sub: 'bob' }));
    expect(await ok.json()).toEqual({ subject: 'bob', scopes: [] });
    const bad = await get(`${url}/maybe`, await issuer.tokens.tamperedSignature());
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('A44: class and handler scopes add up: the handler cannot loosen its controller', async () => {
    const context = await contextOf(platform);
    const { url } = await start(platform, testModule());
    const writer = await issuer.sign({ scope: 'orders:write' });
    const denied = await get(`${url}/orders/admin`, writer);
    const expected = new InsufficientScopeError(['read:orders'], 'all', context);
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toBe(expected.wwwAuthenticate);
    expect(denied.headers.get('www-authenticate')).toContain('scope="read:orders"');
    expect(await denied.json()).toEqual(expected.toJSON());
    const reader = await issuer.sign({ scope: 'read:orders' });
    expect((await get(`${url}/orders`, reader)).status).toBe(200);
    expect((await get(`${url}/orders/admin`, reader)).status).toBe(403);
    const both = await issuer.sign({ scope: 'read:orders orders:write' });
    expect((await get(`${url}/orders/admin`, both)).status).toBe(200);
  });

  it('a controller inherits the scopes of the class it extends', async () => {
    const { url } = await start(platform, testModule());
    expect((await get(`${url}/archive`, await issuer.sign({ scope: 'other' }))).status).toBe(403);
    expect((await get(`${url}/archive`, await issuer.sign({ scope: 'read:orders' }))).status).toBe(200);
  });

  it('A48: @NoDelegation(): 403 access_denied for an impersonation token, 200 for the user’s own', async () => {
    const context = await contextOf(platform);
    const { url } = await start(platform, testModule());
    const support = await issuer.impersonation('support-7', { sub: 'alice' });
    const res = await get(`${url}/self-service`, support);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(new ForbiddenError('delegation_not_allowed', context).toJSON());
    expect((await get(`${url}/me`, support)).status).toBe(200);
    const own = await get(`${url}/self-service`, await issuer.sign({ sub: 'alice' }));
    expect(await own.json()).toEqual({ actor: null });
  });

  it('module-wide allowDelegation: false refuses impersonation on every route', async () => {
    const { url } = await start(platform, testModule({ allowDelegation: false }));
    const res = await get(`${url}/me`, await issuer.impersonation('support-7', { sub: 'alice' }));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'access_denied' });
  });

  it('module-wide optional: true lets anonymous requests through everywhere, scoped routes still 401', async () => {
    const { url } = await start(platform, testModule({ optional: true }));
    expect(await (await get(`${url}/me`)).json()).toEqual({ anonymous: true, same: true });
    expect((await get(`${url}/orders`)).status).toBe(401);
  });
});

@Controller()
class MixedController {
  @Get('open')
  open() {
    return { open: true };
  }

  @Get('guarded')
  @UseGuards(GatehouseGuard)
  @RequireScope('read:orders')
  guarded(@Auth('subject') subject: string | undefined) {
    return { subject };
  }

  @Get('forgot-the-guard')
  forgot(@Auth() auth: AuthInfo) {
    return { auth };
  }
}

describe.each(PLATFORMS)('globalGuard: false on %s', (platform) => {
  it('A52: guards only what @UseGuards(GatehouseGuard) names; @Auth() without the guard is a 500, never anonymous', async () => {
    const { url } = await start(platform, {
      module: TestModule,
      imports: [
        GatehouseModule.forRoot({ ...issuer.verifierOptions(), fetch: issuer.fetch, globalGuard: false }),
      ],
      controllers: [MixedController],
    });
    expect(await (await get(`${url}/open`)).json()).toEqual({ open: true });
    expect((await get(`${url}/guarded`)).status).toBe(401);
    const token = await issuer.sign({ sub: 'carol', scope: 'read:orders' });
    expect(await (await get(`${url}/guarded`, token)).json()).toEqual({ subject: 'carol' });
    const forgot = await get(`${url}/forgot-the-guard`, token);
    expect(forgot.status).toBe(500);
    expect(await forgot.json()).toEqual({ statusCode: 500, message: 'Internal server error' });
  });
});

@Controller('twice')
@UseGuards(GatehouseGuard)
class TwiceGuardedController {
  @Get()
  @RequireScope('read:orders')
  twice(@Auth('subject') subject: string | undefined) {
    return { subject };
  }
}

describe.each(PLATFORMS)('the guard named twice on %s', (platform) => {
  it('verifies the request once (a second check would refuse a DPoP proof as replayed)', async () => {
    const shared = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch });
    let calls = 0;
    // Counted whichever entry the guard uses (authenticateNow answers a cached token without a promise).
    const authenticate = ((request, options) => {
      calls++;
      return shared.authenticate(request, options);
    }) as Verifier['authenticate'];
    const authenticateNow = ((request, options) => {
      calls++;
      return shared.authenticateNow(request, options);
    }) as Verifier['authenticateNow'];
    const verifier: Verifier = { ...shared, authenticate, authenticateNow };
    const { url } = await start(platform, {
      module: TestModule,
      imports: [GatehouseModule.forRoot({ verifier })],
      controllers: [TwiceGuardedController],
    });
    const res = await get(`${url}/twice`, await issuer.sign({ sub: 'dana', scope: 'read:orders' }));
    expect(await res.json()).toEqual({ subject: 'dana' });
    expect(calls).toBe(1);
    expect((await get(`${url}/twice`, await issuer.sign({ scope: 'other' }))).status).toBe(403);
    expect(calls).toBe(2);
  });
});

@Catch(GatehouseException)
class OwnFormatFilter implements ExceptionFilter {
  constructor(@Inject(HttpAdapterHost) private readonly host: HttpAdapterHost) {}
  catch(exception: GatehouseException, context: ArgumentsHost) {
    const response = context.switchToHttp().getResponse();
    this.host.httpAdapter.reply(
      response,
      {
        reason: exception.reason,
        challenge: exception.headers['www-authenticate'] ?? null,
        code: exception.authError.code ?? null,
      },
      exception.getStatus(),
    );
  }
}

describe.each(PLATFORMS)('handleErrors: false on %s', (platform) => {
  it('throws a GatehouseException to the app’s filter and leaves the response alone', async () => {
    const { url } = await start(
      platform,
      testModule(
        { handleErrors: false },
        { providers: [{ provide: APP_FILTER, useClass: OwnFormatFilter }] },
      ),
    );
    const res = await get(`${url}/orders`, await issuer.sign({ scope: 'nothing' }));
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const body = (await res.json()) as { challenge: string };
    expect(body).toMatchObject({ reason: 'insufficient_scope', code: 'insufficient_scope' });
    expect(body.challenge).toContain('error="insufficient_scope"');
  });
});

describe('non-HTTP handlers', () => {
  it('A53: refuses them unless @Public(): the guard never lets an unguardable call through', async () => {
    const { app } = await start('express', testModule());
    const guard = app.get(GatehouseGuard);
    const rpc = (handler: object) => {
      const context = new ExecutionContextHost([{}, {}], ProtectedController, handler as never);
      context.setType('rpc');
      return guard.canActivate(context);
    };
    await expect(rpc(ProtectedController.prototype.me)).rejects.toThrow(
      'GatehouseGuard protects HTTP routes only',
    );
    await expect(rpc(ProtectedController.prototype.maybe)).resolves.toBe(true);
  });
});
