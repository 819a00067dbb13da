/**
 * `@gatehouse/nestjs`: protect NestJS 12 routes (Express or Fastify platform) with OAuth 2.0 JWT
 * access tokens.
 *
 * @example
 * ```ts
 * import { Controller, Get, Module } from '@nestjs/common';
 * import type { AuthInfo } from '@gatehouse/core';
 * import { Auth, GatehouseModule, RequireScope } from '@gatehouse/nestjs';
 *
 * @Controller('orders')
 * class OrdersController {
 *   @Get()
 *   @RequireScope('read:orders')
 *   list(@Auth() auth: AuthInfo) {
 *     return { user: auth.subject };
 *   }
 * }
 *
 * @Module({
 *   imports: [GatehouseModule.forRoot({ issuer: 'https://id.example.com', audience: 'https://api.example.com' })],
 *   controllers: [OrdersController],
 * })
 * export class AppModule {}
 * ```
 *
 * @module
 */
export {
  Auth,
  type AuthProperty,
  NoDelegation,
  Public,
  RequireRole,
  type RequireRoleArgs,
  RequireScope,
  type RequireScopeArgs,
  type RouteDecorator,
} from './decorators.js';
export { GatehouseException } from './errors.js';
export { GatehouseGuard } from './guard.js';
export { GatehouseModule } from './module.js';
export { DEFAULTS } from './options.js';
export { GATEHOUSE, GATEHOUSE_VERIFIER } from './tokens.js';
export type {
  AdapterOptions,
  AuthenticatedRequest,
  GatehouseModuleAsyncOptions,
  GatehouseModuleOptions,
  GatehouseOptions,
  ModuleSwitches,
  RequireRoleOptions,
  RequireScopeOptions,
} from './types.js';
