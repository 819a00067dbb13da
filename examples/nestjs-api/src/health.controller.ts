/**
 * `GET /health`: the one route that needs no token (`@Public()`).
 *
 * @module
 */
import { Public } from '@gatehouse/nestjs';
import { Controller, Get } from '@nestjs/common';

/** Liveness for load balancers. */
@Controller('health')
export class HealthController {
  @Get()
  @Public()
  health() {
    return { status: 'ok' };
  }
}
