import {
  createVerifier,
  KeySetError,
  type ResolvedAdapterOptions,
  resourceMetadataUrl,
  type Verifier,
} from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import { Controller, Get, Inject, Injectable, Module } from '@nestjs/common';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GATEHOUSE, GATEHOUSE_VERIFIER, GatehouseModule, type GatehouseOptions } from '../src/index.js';
import { closeAll, create, get, PLATFORMS, start } from './helpers.js';

const AUDIENCE = 'https://api.gatehouse.test/orders';
const METADATA_URL = resourceMetadataUrl(AUDIENCE);
const METADATA_PATH = new URL(METADATA_URL).pathname;
let issuer: TestIssuer;

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
});
afterEach(closeAll);

@Controller()
class MeController {
  @Get('me')
  me() {
    return { ok: true };
  }
}

/** Configuration from "elsewhere": a provider of another module, as `ConfigService` would be. */
@Injectable()
class Settings {
  options(): GatehouseOptions {
    return { ...issuer.verifierOptions(), fetch: issuer.fetch };
  }
}

@Module({ providers: [Settings], exports: [Settings] })
class SettingsModule {}

/** A service of the app that shares the module's verifier. */
@Injectable()
class TokenInspector {
  constructor(
    @Inject(GATEHOUSE_VERIFIER) readonly verifier: Verifier,
    @Inject(GATEHOUSE) readonly gatehouse: ResolvedAdapterOptions,
  ) {}
}

@Module({})
class RootModule {}

describe.each(PLATFORMS)('GatehouseModule on %s', (platform) => {
  it('forRootAsync: builds the options from injected providers, and shares one verifier', async () => {
    const { app, url } = await start(platform, {
      module: RootModule,
      imports: [
        GatehouseModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => settings.options(),
        }),
      ],
      controllers: [MeController],
      providers: [TokenInspector],
    });
    expect((await get(`${url}/me`)).status).toBe(401);
    expect((await get(`${url}/me`, await issuer.sign({ sub: 'alice' }))).status).toBe(200);
    const inspector = app.get(TokenInspector);
    expect(inspector.verifier).toBe(inspector.gatehouse.verifier);
    expect((await inspector.verifier.verify(await issuer.sign({ sub: 'bob' }))).subject).toBe('bob');
  });

  it('forRootAsync: a bad option from the factory fails the application start', async () => {
    const starting = create(platform, {
      module: RootModule,
      imports: [
        GatehouseModule.forRootAsync({
          useFactory: async () => ({ ...issuer.verifierOptions(), jwksUrl: 'https://x.test/jwks' }) as never,
        }),
      ],
    });
    await expect(starting).rejects.toThrow('unknown option "jwksUrl" (did you mean "jwksUri"?)');
  });

  it('serves the RFC 9728 document, outside the global prefix and the guard, and names it in challenges', async () => {
    const { url } = await start(
      platform,
      {
        module: RootModule,
        imports: [
          GatehouseModule.forRoot({
            ...issuer.verifierOptions(),
            fetch: issuer.fetch,
            resourceMetadata: { scopesSupported: ['read:orders'], resourceName: 'Orders' },
          }),
        ],
        controllers: [MeController],
      },
      (app) => app.setGlobalPrefix('api'),
    );
    const head = await get(`${url}${METADATA_PATH}`, undefined, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('access-control-allow-origin')).toBe('*');
    const res = await get(`${url}${METADATA_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      resource: AUDIENCE,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['read:orders'],
      resource_name: 'Orders',
      dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
    });
    const challenge = (await get(`${url}/api/me`)).headers.get('www-authenticate');
    expect(challenge).toContain(`resource_metadata="${METADATA_URL}"`);
  });

  it('with a shared verifier, serves the document when the verifier points at it', async () => {
    const verifier = createVerifier({
      ...issuer.verifierOptions(),
      fetch: issuer.fetch,
      resourceMetadata: METADATA_URL,
    });
    const { url } = await start(platform, {
      module: RootModule,
      imports: [GatehouseModule.forRoot({ verifier, resourceMetadata: {} })],
    });
    expect((await get(`${url}${METADATA_PATH}`)).status).toBe(200);
  });

  it('serves no document without resourceMetadata', async () => {
    const { url } = await start(platform, {
      module: RootModule,
      imports: [GatehouseModule.forRoot({ ...issuer.verifierOptions(), fetch: issuer.fetch })],
    });
    expect((await get(`${url}${METADATA_PATH}`)).status).toBe(404);
  });

  it('warmUp: keys that cannot be had fail app.init() with a KeySetError', async () => {
    const unreachable: typeof fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const app = await create(platform, {
      module: RootModule,
      imports: [
        GatehouseModule.forRoot({
          ...issuer.verifierOptions(),
          fetch: unreachable,
          warmUp: true,
          onWarning() {},
        }),
      ],
    });
    const error = await app.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KeySetError);
  });

  it('warmUp: fetches the keys while the application starts', async () => {
    let fetches = 0;
    const counted: typeof fetch = (input, init) => {
      fetches++;
      return issuer.fetch(input, init);
    };
    const app = await create(platform, {
      module: RootModule,
      imports: [GatehouseModule.forRoot({ ...issuer.verifierOptions(), fetch: counted, warmUp: true })],
    });
    expect(fetches).toBe(0);
    await app.init();
    expect(fetches).toBeGreaterThan(0);
  });
});
