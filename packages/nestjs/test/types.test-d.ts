import type { AuthErrorReason, AuthInfo, Verifier } from '@gatehouse/core';
import { Controller, type DynamicModule, Get } from '@nestjs/common';
import { describe, expectTypeOf, it } from 'vitest';
import {
  Auth,
  type AuthenticatedRequest,
  type AuthProperty,
  type GatehouseException,
  GatehouseModule,
  NoDelegation,
  Public,
  RequireScope,
  type RouteDecorator,
} from '../src/index.js';

declare const verifier: Verifier;

describe('@gatehouse/nestjs types', () => {
  it('types the decorators for classes and handlers, and @Auth() for parameters', () => {
    expectTypeOf(RequireScope('read:orders')).toEqualTypeOf<RouteDecorator>();
    expectTypeOf<RouteDecorator>().toExtend<ClassDecorator>();
    expectTypeOf<RouteDecorator>().toExtend<MethodDecorator>();
    expectTypeOf(Public()).toEqualTypeOf<RouteDecorator>();
    expectTypeOf(NoDelegation()).toEqualTypeOf<RouteDecorator>();
    expectTypeOf(Auth()).toEqualTypeOf<ParameterDecorator>();
    expectTypeOf(Auth('subject')).toEqualTypeOf<ParameterDecorator>();

    @Controller('orders')
    @RequireScope('read:orders')
    class OrdersController {
      @Get()
      @RequireScope('orders:admin', 'orders:write', { mode: 'any', allowDelegation: false })
      @NoDelegation()
      list(@Auth() auth: AuthInfo, @Auth('scopes') scopes: readonly string[]) {
        return { user: auth.subject, scopes };
      }

      @Get('public')
      @Public()
      catalogue(@Auth() auth: AuthInfo | undefined) {
        return auth?.subject;
      }
    }
    expectTypeOf(OrdersController).toBeConstructibleWith();
  });

  it('lets @Auth() name data members of AuthInfo only', () => {
    expectTypeOf<AuthProperty>().toEqualTypeOf<
      | 'token'
      | 'claims'
      | 'subject'
      | 'clientId'
      | 'issuer'
      | 'audience'
      | 'scopes'
      | 'roles'
      | 'expiresAt'
      | 'actor'
      | 'delegated'
      | 'confirmation'
    >();
    // @ts-expect-error hasScope is a method, not data of the token
    Auth('hasScope');
    // @ts-expect-error not a member of AuthInfo
    Auth('email');
  });

  it('takes scopes, then options, in @RequireScope()', () => {
    const SCOPES = ['read:users', 'write:users'] as readonly string[];
    RequireScope(...SCOPES);
    RequireScope(...SCOPES, { mode: 'any' });
    // @ts-expect-error mode is 'all' or 'any'
    RequireScope('a', { mode: 'some' });
    // @ts-expect-error options come last
    RequireScope({ mode: 'any' }, 'a');
    // @ts-expect-error scopes are strings
    RequireScope(42);
  });

  it('types the module definitions and their options', () => {
    const options = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };
    expectTypeOf(GatehouseModule.forRoot(options)).toEqualTypeOf<DynamicModule>();
    GatehouseModule.forRoot({ verifier, globalGuard: false, resourceMetadata: { resourceName: 'Orders' } });
    GatehouseModule.forRootAsync({ useFactory: async () => options, globalGuard: false });
    GatehouseModule.forRootAsync({
      inject: ['CONFIG'],
      useFactory: (config: { issuer: string }) => ({ ...options, ...config }),
    });
    // @ts-expect-error a shared verifier cannot be mixed with verifier options
    GatehouseModule.forRoot({ verifier, issuer: 'https://id.example.com' });
    // @ts-expect-error issuer and audience are required without a shared verifier
    GatehouseModule.forRoot({ optional: true });
  });

  it('exposes the error and the request as the guard leaves them', () => {
    expectTypeOf<GatehouseException['headers']>().toEqualTypeOf<Readonly<Record<string, string>>>();
    expectTypeOf<GatehouseException['reason']>().toEqualTypeOf<AuthErrorReason>();
    expectTypeOf<AuthenticatedRequest['auth']>().toEqualTypeOf<AuthInfo | undefined>();
  });
});
