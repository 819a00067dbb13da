/**
 * The orders routes. The module's global guard has verified the token before any handler runs;
 * `@RequireScope()` states what each route needs, and `@Auth()` hands over the verified token.
 *
 * @module
 */
import { type AuthInfo, toAuditRecord } from '@gatehouse/core';
import { type Order, type OrderStore, ownerOf, parseOrderInput } from '@gatehouse/example-shared/orders';
import { Auth, RequireScope } from '@gatehouse/nestjs';
import {
  BadRequestException,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import { ImpersonationAudit } from './audit.interceptor.ts';
import { STORE } from './tokens.ts';

/** What `@Res({ passthrough: true })` is used for: one header, on Express and Fastify alike. */
interface HeaderTarget {
  header(name: string, value: string): unknown;
}

@Controller('orders')
@UseInterceptors(ImpersonationAudit)
export class OrdersController {
  constructor(@Inject(STORE) private readonly store: OrderStore) {}

  @Get()
  @RequireScope('read:orders')
  list(@Auth() auth: AuthInfo): { orders: Order[] } {
    return { orders: this.store.list(ownerOf(auth)) };
  }

  @Post()
  @RequireScope('write:orders')
  create(
    @Auth() auth: AuthInfo,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: HeaderTarget,
  ): Order {
    const input = parseOrderInput(body);
    if (!input.ok)
      throw new BadRequestException({ error: 'invalid_request', error_description: input.error });
    const owner = ownerOf(auth);
    const order = this.store.create(owner, input.value, toAuditRecord(auth).actor ?? owner);
    response.header('location', `/orders/${order.id}`);
    return order;
  }

  // Deleting is irreversible: a support engineer acting for the customer may not do it.
  @Delete(':id')
  @HttpCode(204)
  @RequireScope('write:orders', { allowDelegation: false })
  remove(@Auth() auth: AuthInfo, @Param('id') id: string): void {
    if (!this.store.delete(ownerOf(auth), id)) throw new NotFoundException({ error: 'not_found' });
  }
}
