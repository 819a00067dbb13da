/**
 * First-start bootstrap: management resource and role, administrator once, fixed credentials, base URL
 * changes; the "never used" mark of a generated administrator secret, and resetting it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bootstrap, resetAdminSecret } from '../src/bootstrap.js';
import { NoAdministratorError } from '../src/errors.js';
import { verifySecret } from '../src/internal/secrets.js';
import { resolveConfig } from '../src/issuer-config.js';
import { MANAGEMENT_SCOPES } from '../src/management/scopes.js';
import type { Store } from '../src/storage/store.js';
import { DRIVERS, openTestStore } from './helpers/drivers.js';

describe.each(DRIVERS)('bootstrap (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('creates the administrator once; the secret is returned only then', async () => {
    const config = resolveConfig({ baseUrl: 'http://localhost:3001' });
    const first = await bootstrap(store, config, 1);
    expect(first.created).toBe(true);
    expect(first.adminClientSecret).toHaveLength(43);
    const app = await store.applications.get(first.adminClientId);
    expect(app?.type).toBe('MachineToMachine');
    expect(verifySecret(first.adminClientSecret!, app!.secretHash!)).toBe(true);
    expect(
      await store.roles.grantedScopes({ applicationId: first.adminClientId }, 'http://localhost:3001/api'),
    ).toEqual(['all']);
    const resource = await store.resources.findByIndicator('http://localhost:3001/api');
    expect(resource?.system).toBe(true);
    expect((await store.resources.listScopes(resource!.id)).map((s) => s.name).sort()).toEqual(
      MANAGEMENT_SCOPES.map((s) => s.name).sort(),
    );

    const second = await bootstrap(store, config, 2);
    expect(second).toMatchObject({
      created: false,
      adminClientSecret: undefined,
      adminClientId: first.adminClientId,
    });
    // The administrator and the admin console's application.
    expect((await store.applications.list({ page: 1, pageSize: 10 })).total).toBe(2);
  });

  it('uses fixed credentials and re-syncs the secret when it changes', async () => {
    const secret = 'x'.repeat(40);
    const config = resolveConfig({
      baseUrl: 'http://localhost:3001',
      admin: { clientId: 'ci-admin', clientSecret: secret },
    });
    const first = await bootstrap(store, config, 1);
    expect(first).toMatchObject({ adminClientId: 'ci-admin', created: true, adminClientSecret: undefined });
    const changed = resolveConfig({
      baseUrl: 'http://localhost:3001',
      admin: { clientId: 'ci-admin', clientSecret: 'y'.repeat(40) },
    });
    await bootstrap(store, changed, 2);
    expect(verifySecret('y'.repeat(40), (await store.applications.get('ci-admin'))!.secretHash!)).toBe(true);
  });

  it('moves the Management API audience when the base URL changes', async () => {
    const first = await bootstrap(store, resolveConfig({ baseUrl: 'http://localhost:3001' }), 1);
    await bootstrap(store, resolveConfig({ baseUrl: 'https://id.example.com' }), 2);
    expect((await store.resources.get(first.managementResourceId))?.indicator).toBe(
      'https://id.example.com/api',
    );
    expect(
      await store.roles.grantedScopes({ applicationId: first.adminClientId }, 'https://id.example.com/api'),
    ).toEqual(['all']);
  });
});

describe.each(DRIVERS)('the administrator secret (%s)', (driver) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(driver);
  });
  afterEach(() => store.close());

  it('is unused after the first start; a reset replaces it and records whether it was shown on purpose', async () => {
    const config = resolveConfig({ baseUrl: 'http://localhost:3001' });
    await expect(resetAdminSecret(store, 1, { database: 'the test database' })).rejects.toThrow(
      NoAdministratorError,
    );
    const first = await bootstrap(store, config, 1);
    expect(first.secretUnused).toBe(true);
    expect((await bootstrap(store, config, 2)).secretUnused).toBe(true);

    const reissued = await resetAdminSecret(store, 3, { unused: true });
    expect(reissued.clientId).toBe(first.adminClientId);
    const app = await store.applications.get(first.adminClientId);
    expect(verifySecret(reissued.clientSecret, app!.secretHash!)).toBe(true);
    expect(verifySecret(first.adminClientSecret!, app!.secretHash!)).toBe(false);
    expect((await bootstrap(store, config, 4)).secretUnused).toBe(true);

    await resetAdminSecret(store, 5);
    expect((await bootstrap(store, config, 6)).secretUnused).toBe(false);
  });

  it('fixed credentials are never unused', async () => {
    const config = resolveConfig({
      baseUrl: 'http://localhost:3001',
      admin: { clientId: 'ci-admin', clientSecret: 'x'.repeat(40) },
    });
    expect((await bootstrap(store, config, 1)).secretUnused).toBe(false);
    expect(
      (await bootstrap(store, resolveConfig({ baseUrl: 'http://localhost:3001' }), 2)).secretUnused,
    ).toBe(false);
  });
});
