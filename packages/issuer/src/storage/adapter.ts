/**
 * The oidc-provider adapter (sessions, interactions, codes, refresh tokens, grants …) on top of a
 * {@link Store}. Clients are not stored here: the `Client` model is answered from the applications
 * table, so a client is exactly what the Management API says it is.
 *
 * `consume()` is atomic: of two concurrent redemptions of one code or refresh token exactly one
 * succeeds; the other gets `invalid_grant` and the whole grant is revoked (catalogue B27, B28, B36).
 *
 * @module
 */
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { epoch } from '../internal/ids.js';
import type { Store, StoredPayload } from './store.js';

/** Looks up client metadata by `client_id` (from the applications table). */
export type ClientLookup = (clientId: string) => Promise<AdapterPayload | undefined>;

function withConsumed(row: StoredPayload | undefined): AdapterPayload | undefined {
  if (row === undefined) return undefined;
  const payload = { ...row.payload } as AdapterPayload;
  if (row.consumedAt !== null) payload.consumed = row.consumedAt;
  return payload;
}

/**
 * Build the adapter constructor oidc-provider expects (`new Adapter(modelName)`).
 *
 * @example
 * ```ts
 * const Adapter = createAdapter(store, async (id) => toClientMetadata(await store.applications.get(id)));
 * new Provider(issuer, { adapter: Adapter });
 * ```
 */
export function createAdapter(store: Store, findClient: ClientLookup): new (model: string) => Adapter {
  const payloads = store.payloads;
  return class StoreAdapter implements Adapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const expiresAt = typeof expiresIn === 'number' && expiresIn > 0 ? epoch() + expiresIn : null;
      const { grantId, uid, userCode } = payload as { grantId?: string; uid?: string; userCode?: string };
      await payloads.upsert(this.model, id, payload as Record<string, unknown>, expiresAt, {
        grantId,
        uid,
        userCode,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return findClient(id);
      return withConsumed(await payloads.find(this.model, id, epoch()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return withConsumed(await payloads.findByUid(this.model, uid, epoch()));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return withConsumed(await payloads.findByUserCode(this.model, userCode, epoch()));
    }

    async consume(id: string): Promise<void> {
      const now = epoch();
      if (await payloads.consume(this.model, id, now)) return;
      // Lost a race (or a replay slipped past the provider's own check): revoke the grant and refuse.
      const row = await payloads.find(this.model, id, now);
      if (row?.grantId) {
        await payloads.revokeByGrantId(row.grantId);
        await payloads.destroy('Grant', row.grantId);
      }
      throw new errors.InvalidGrant('grant already consumed');
    }

    async destroy(id: string): Promise<void> {
      await payloads.destroy(this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await payloads.revokeByGrantId(grantId);
    }
  };
}
