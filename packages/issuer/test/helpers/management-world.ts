/**
 * The world of a Management API suite: a fresh issuer of one driver, started before the suite with an
 * administrator token, and closed after it.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Driver } from './drivers.js';
import { adminToken, startIssuer, type TestIssuer } from './issuer.js';

/** Filled in by `beforeAll`: read its fields inside tests, never at collection time. */
export interface ManagementWorld {
  /** The started issuer. */
  readonly t: TestIssuer;
  /** A Management API access token of the bootstrap administrator. */
  readonly admin: string;
}

/**
 * Register, in the calling `describe`, the hooks that start an issuer of `driver` (and get an
 * administrator token) before its tests and close it after them.
 *
 * @example
 * ```ts
 * describe.each(DRIVERS)('%s', (driver) => {
 *   const world = useManagementWorld(driver);
 *   it('lists users', async () => {
 *     expect((await api(world.t, world.admin, 'GET', '/users')).status).toBe(200);
 *   });
 * });
 * ```
 */
export function useManagementWorld(driver: Driver): ManagementWorld {
  const world = {} as { t: TestIssuer; admin: string };
  beforeAll(async () => {
    world.t = await startIssuer(driver);
    world.admin = await adminToken(world.t);
  });
  afterAll(() => world.t.close());
  return world;
}
