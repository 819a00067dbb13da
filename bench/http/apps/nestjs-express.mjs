/** NestJS 12 on its Express platform: bare, hand-written jose guard, `@gatehouse/nestjs` (cache off / on). */
import { startNest } from '../lib/nest.mjs';

export { CONFIGS } from '../lib/nest.mjs';

/** Build the app and listen on an ephemeral loopback port. */
export const start = (config, options) => startNest('express', config, options);
