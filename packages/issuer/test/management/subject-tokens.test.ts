/**
 * `POST /api/subject-tokens`: 201 with the value once, only a SHA-256 digest stored, creator recorded,
 * server-set lifetime, strict body (B43), context cap (B45), 404/400 for unknown or suspended users,
 * the `subject-tokens:create` scope, audit events, and the value refused as a Management API bearer (B42).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld } from '../helpers/fixtures.js';
import { adminToken, api, managementToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;
  let admin: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    t = await startIssuer(driver, { subjectTokens: { ttl: 120 } });
    await loadWorld(t);
    admin = await adminToken(t);
    alice = (await t.issuer.store.users.findByLogin('alice'))!.id;
    bob = (await t.issuer.store.users.findByLogin('bob'))!.id;
  });
  afterAll(() => t.close());

  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

  describe('POST /api/subject-tokens', () => {
    it('returns the value once with the configured lifetime; stores only its digest and the creator', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        context: { reason: 'support', ticketId: 'T-42' },
        applicationId: 'web-app',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['expiresIn', 'subjectToken']);
      expect(res.body.expiresIn).toBe(120);
      expect(res.body.subjectToken).toMatch(/^sub_[A-Za-z0-9_-]{43}$/);
      const record = await t.issuer.store.subjectTokens.findByHash(sha256(res.body.subjectToken));
      expect(record).toMatchObject({
        userId: alice,
        applicationId: 'web-app',
        actorId: null,
        createdBy: t.admin.clientId,
        context: { reason: 'support', ticketId: 'T-42' },
        consumedAt: null,
      });
      expect(record!.expiresAt - record!.createdAt).toBe(120);
      expect(record!.createdAt).toBeGreaterThanOrEqual(before);
      // B49: nothing stored is the token itself.
      expect(JSON.stringify(record)).not.toContain(res.body.subjectToken.slice(4));
    });

    it('two tokens for the same user differ (256 random bits each)', async () => {
      const a = await api(t, admin, 'POST', '/subject-tokens', { userId: alice });
      const b = await api(t, admin, 'POST', '/subject-tokens', { userId: alice });
      expect(a.body.subjectToken).not.toBe(b.body.subjectToken);
      expect(Buffer.from(a.body.subjectToken.slice(4), 'base64url')).toHaveLength(32);
    });

    it('unknown user → 404; suspended user → 400 user_suspended', async () => {
      const unknown = await api(t, admin, 'POST', '/subject-tokens', { userId: 'usr_doesnotexist' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 'not_found', message: 'User not found' });
      const suspended = await api(t, admin, 'POST', '/subject-tokens', { userId: bob });
      expect(suspended.status).toBe(400);
      expect(suspended.body.code).toBe('user_suspended');
    });

    it('unknown bound application or actor → 404', async () => {
      const app = await api(t, admin, 'POST', '/subject-tokens', { userId: alice, applicationId: 'nope' });
      expect(app.status).toBe(404);
      expect(app.body.message).toBe('Application not found');
      const actor = await api(t, admin, 'POST', '/subject-tokens', { userId: alice, actorId: 'usr_nobody' });
      expect(actor.status).toBe(404);
      expect(actor.body.message).toBe('Actor user not found');
    });

    it.each([
      ['expiresAt', { expiresAt: '2099-01-01T00:00:00Z' }],
      ['expiresIn', { expiresIn: 86_400 }],
      ['consumedAt', { consumedAt: 1 }],
      ['id', { id: 'stk_mine' }],
      ['creatorId', { creatorId: 'someone' }],
      ['isAdmin', { isAdmin: true }],
    ])('B43: an unknown field (%s) → 400', async (field, extra) => {
      const res = await api(t, admin, 'POST', '/subject-tokens', { userId: alice, ...extra });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(JSON.stringify(res.body.issues)).toContain(field);
    });

    it.each([
      ['no body', undefined],
      ['no userId', { context: {} }],
      ['a numeric userId', { userId: 42 }],
      ['an array context', { userId: 'x', context: [1, 2] }],
      ['a string context', { userId: 'x', context: 'text' }],
      ['malformed JSON', '{"userId":'],
    ])('malformed body (%s) → 400', async (_, body) => {
      const res = await api(t, admin, 'POST', '/subject-tokens', body, {
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
    });

    it('B45: a context over 4 KB → 400', async () => {
      const res = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        context: { blob: 'x'.repeat(4_100) },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('4096 bytes');
      const fits = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        context: { blob: 'x'.repeat(4_000) },
      });
      expect(fits.status).toBe(201);
    });

    it('B74: __proto__, constructor or prototype keys in context, at any depth → 400 naming the key', async () => {
      const before = (await t.issuer.store.auditEvents.list({}, { page: 1, pageSize: 1 })).total;
      const bodies: Array<[string, string]> = [
        [`{"userId":"${alice}","context":{"__proto__":{"admin":true}}}`, 'body.context.__proto__'],
        [
          `{"userId":"${alice}","context":{"a":{"b":{"constructor":{"x":1}}}}}`,
          'body.context.a.b.constructor',
        ],
        [`{"userId":"${alice}","context":{"list":[{"prototype":1}]}}`, 'body.context.list.0.prototype'],
        [`{"__proto__":{"userId":"${alice}"}}`, 'body.__proto__'],
      ];
      for (const [body, path] of bodies) {
        const res = await api(t, admin, 'POST', '/subject-tokens', body);
        expect(res.status, body).toBe(400);
        expect(res.body.code).toBe('invalid_request');
        const key = path.slice(path.lastIndexOf('.') + 1);
        expect(res.body.message).toBe(`The key "${key}" is not allowed in a request body`);
        expect(res.body.issues).toEqual([{ path, message: expect.stringContaining('rename the key') }]);
      }
      // Nothing was created; the same keys as values, or inside longer names, are plain data.
      expect((await t.issuer.store.auditEvents.list({}, { page: 1, pageSize: 1 })).total).toBe(before);
      const fine = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        context: { note: '__proto__', constructorName: 'x', prototypes: ['constructor'] },
      });
      expect(fine.status).toBe(201);
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });

    it('needs all or subject-tokens:create', async () => {
      const narrow = await managementToken(t, ['subject-tokens:create']);
      expect((await api(t, narrow, 'POST', '/subject-tokens', { userId: alice })).status).toBe(201);
      expect((await api(t, narrow, 'GET', '/users')).status).toBe(403);
      const reader = await managementToken(t, ['users:read']);
      const denied = await api(t, reader, 'POST', '/subject-tokens', { userId: alice });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('insufficient_scope');
    });

    it('records an audit event with the creator, the user and the context', async () => {
      const res = await api(t, admin, 'POST', '/subject-tokens', {
        userId: alice,
        actorId: alice,
        context: { ticketId: 'AUDIT-1' },
      });
      expect(res.status).toBe(201);
      const events = await api(t, admin, 'GET', `/audit-events?type=subject_token.created&userId=${alice}`);
      const event = events.body.items.find(
        (item: { details: { context?: { ticketId?: string } } }) =>
          item.details.context?.ticketId === 'AUDIT-1',
      );
      expect(event).toMatchObject({
        type: 'subject_token.created',
        applicationId: t.admin.clientId,
        userId: alice,
        actorId: alice,
        reason: null,
        details: { boundActorId: alice, boundApplicationId: null },
      });
      expect(event.details.subjectTokenId).toMatch(/^stk_/);
      expect(JSON.stringify(events.body)).not.toContain(res.body.subjectToken);
    });

    it('B42: a subject token used as the Management API bearer → 401 invalid_token', async () => {
      const res = await api(t, admin, 'POST', '/subject-tokens', { userId: alice });
      const denied = await api(t, res.body.subjectToken, 'GET', '/users');
      expect(denied.status).toBe(401);
      expect(denied.body.code).toBe('invalid_token');
    });

    it('is described in the OpenAPI document', async () => {
      const doc = await api(t, undefined, 'GET', '/openapi.json');
      expect(doc.body.paths['/subject-tokens'].post.security).toEqual([
        { bearer: ['all', 'subject-tokens:create'] },
      ]);
      expect(doc.body.components.schemas.CreateSubjectToken.additionalProperties).toBe(false);
      expect(doc.body.paths['/audit-events'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(['userId', 'actorId', 'applicationId', 'since', 'until', 'type']),
      );
    });
  });
});
