import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBackend } from '../src/app.ts';
import { defaultPolicy } from '../src/policy.ts';
import { AUDIENCE, CLIENT, ENDPOINT, type FakeIssuer, startFakeIssuer } from './helpers.ts';

const ENGINEER = 'usr_sam';
const CUSTOMER = 'usr_alice';
const CONSOLE = 'support-console';
const BODY = { userId: CUSTOMER, reason: 'cannot see an order', ticketId: 'SUP-1234' };

let fake: FakeIssuer & { close(): void; reset(): void };
beforeAll(async () => {
  fake = await startFakeIssuer();
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

/** A fresh backend (own key and M2M token caches) whose log lines are kept in `lines`. */
function setup(options: Partial<Parameters<typeof createBackend>[0]> = {}) {
  const lines: string[] = [];
  const logger = { info: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
  const app = createBackend({
    endpoint: ENDPOINT,
    audience: AUDIENCE,
    clientId: CLIENT.id,
    clientSecret: CLIENT.secret,
    logger,
    ...options,
  });
  return { app, lines };
}

/** The engineer's access token for this backend, as the issuer would sign it after sign-in. */
const engineerToken = (claims: Record<string, unknown> = {}) =>
  fake.issuer.sign({ sub: ENGINEER, client_id: CONSOLE, scope: 'openid impersonate:users', ...claims });

describe('POST /impersonations', () => {
  it('mints a subject token bound to the engineer and the console, with the context, and answers 201', async () => {
    const { app, lines } = setup();
    const token = await engineerToken();
    const res = await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ subjectToken: 'sub_minted-1', expiresIn: 600 });
    expect(res.headers['cache-control']).toBe('no-store');

    expect(fake.tokenRequests).toEqual([
      {
        params: {
          grant_type: 'client_credentials',
          resource: `${ENDPOINT}/api`,
          scope: 'subject-tokens:create',
        },
        authenticated: true,
      },
    ]);
    expect(fake.subjectTokenRequests).toEqual([
      {
        bearer: 'm2m-1',
        body: {
          userId: CUSTOMER,
          context: { ticketId: 'SUP-1234', reason: 'cannot see an order', engineerId: ENGINEER },
          actorId: ENGINEER,
          applicationId: CONSOLE,
        },
      },
    ]);
    const events = lines.map((line) => JSON.parse(line));
    expect(events.map((e) => e.event)).toEqual(['m2m_token.obtained', 'impersonation.granted']);
    expect(events[1]).toMatchObject({ engineerId: ENGINEER, userId: CUSTOMER, ticketId: 'SUP-1234' });
    // Never a token in the logs: not the engineer's, not the M2M token, not the subject token.
    const logged = lines.join('\n');
    for (const secret of [token, token.split('.')[2]!, 'm2m-1', 'sub_minted-1', CLIENT.secret])
      expect(logged).not.toContain(secret);
  });

  it('reuses the M2M token until it nearly expires, then gets a new one', async () => {
    const { app } = setup();
    const token = await engineerToken();
    for (let i = 0; i < 3; i++)
      await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY).expect(201);
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.subjectTokenRequests.map((r) => r.bearer)).toEqual(['m2m-1', 'm2m-1', 'm2m-1']);
  });

  it('gets a new M2M token and retries once when the Management API answers 401', async () => {
    const { app } = setup();
    const token = await engineerToken();
    await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY).expect(201);
    fake.revoked.add(fake.issued.at(-1)!);
    await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY).expect(201);
    expect(fake.tokenRequests).toHaveLength(2);
    expect(fake.subjectTokenRequests.map((r) => r.bearer)).toEqual([
      fake.issued.at(-2),
      fake.issued.at(-2),
      fake.issued.at(-1),
    ]);
  });

  it('answers 502 without detail when the issuer refuses the backend’s credentials', async () => {
    const { app, lines } = setup({ clientSecret: 'a-wrong-secret-0123456789abcdefghijkl' });
    const res = await request(app)
      .post('/impersonations')
      .auth(await engineerToken(), { type: 'bearer' })
      .send(BODY);
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ error: 'issuer_error', error_description: 'the issuer refused or failed' });
    expect(lines.join('\n')).not.toContain('a-wrong-secret');
  });

  it('answers 404 for an unknown user and 409 for a suspended one', async () => {
    const { app } = setup();
    const token = await engineerToken();
    fake.next = { status: 404, body: { code: 'not_found', message: 'User not found' } };
    const missing = await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY);
    expect([missing.status, missing.body.error]).toEqual([404, 'unknown_user']);
    fake.next = { status: 400, body: { code: 'user_suspended', message: 'User is suspended' } };
    const suspended = await request(app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY);
    expect([suspended.status, suspended.body.error]).toEqual([409, 'user_suspended']);
  });

  it('refuses what the policy refuses with 403, and mints nothing', async () => {
    const { app, lines } = setup({ policy: defaultPolicy({ protectedUserIds: ['usr_admin'] }) });
    const token = await engineerToken();
    const self = await request(app)
      .post('/impersonations')
      .auth(token, { type: 'bearer' })
      .send({ ...BODY, userId: ENGINEER });
    expect(self.status).toBe(403);
    expect(self.body).toEqual({
      error: 'access_denied',
      error_description: 'you cannot impersonate yourself',
    });
    const admin = await request(app)
      .post('/impersonations')
      .auth(token, { type: 'bearer' })
      .send({ ...BODY, userId: 'usr_admin' });
    expect(admin.status).toBe(403);
    expect(fake.subjectTokenRequests).toHaveLength(0);
    expect(lines.map((line) => JSON.parse(line).event)).toEqual([
      'impersonation.refused',
      'impersonation.refused',
    ]);
  });

  it('passes the engineer and the request to a custom policy', async () => {
    const asked: unknown[] = [];
    const { app } = setup({
      policy: (input) => {
        asked.push(input);
        return { allow: false, reason: 'outside support hours' };
      },
    });
    const res = await request(app)
      .post('/impersonations')
      .auth(await engineerToken(), { type: 'bearer' })
      .send(BODY);
    expect(res.status).toBe(403);
    expect(asked).toEqual([{ engineerId: ENGINEER, ...BODY }]);
  });

  it.each([
    ['an extra field (actorId chosen by the caller)', { ...BODY, actorId: 'usr_mallory' }],
    ['an extra field (context chosen by the caller)', { ...BODY, context: { ticketId: 'X-1' } }],
    ['no reason', { userId: CUSTOMER, ticketId: 'SUP-1234' }],
    ['a malformed ticket id', { ...BODY, ticketId: 'see ticket 1234' }],
    ['an array', [BODY]],
  ])('answers 400 invalid_request for %s', async (_name, body) => {
    const { app } = setup();
    const res = await request(app)
      .post('/impersonations')
      .auth(await engineerToken(), { type: 'bearer' })
      .send(body as object);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(fake.subjectTokenRequests).toHaveLength(0);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await request(setup().app)
      .post('/impersonations')
      .auth(await engineerToken(), { type: 'bearer' })
      .set('content-type', 'application/json')
      .send('{"userId":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: 'body is not valid JSON' });
  });
});

describe('who may call POST /impersonations', () => {
  it('answers 401 with a bare challenge without a token, before reading the body', async () => {
    const res = await request(setup().app).post('/impersonations').send(BODY);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
    expect(fake.tokenRequests).toHaveLength(0);
  });

  it('answers 403 insufficient_scope for a signed-in user without the impersonation scope', async () => {
    const res = await request(setup().app)
      .post('/impersonations')
      .auth(await engineerToken({ scope: 'openid read:orders' }), { type: 'bearer' })
      .send(BODY);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain('scope="impersonate:users"');
  });

  it('answers 403 access_denied for an impersonation token: nobody impersonates while impersonating', async () => {
    const token = await fake.issuer.impersonation(ENGINEER, {
      sub: CUSTOMER,
      client_id: CONSOLE,
      scope: 'impersonate:users',
    });
    const res = await request(setup().app).post('/impersonations').auth(token, { type: 'bearer' }).send(BODY);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('access_denied');
    expect(fake.subjectTokenRequests).toHaveLength(0);
  });

  it('answers 403 for a machine-to-machine token (no user to record as the actor)', async () => {
    const res = await request(setup().app)
      .post('/impersonations')
      .auth(await engineerToken({ sub: CLIENT.id, client_id: CLIENT.id }), { type: 'bearer' })
      .send(BODY);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('access_denied');
  });

  it.each(['wrongAudience', 'expired', 'tamperedSignature', 'algNone', 'wrongIssuer'] as const)(
    'answers 401 invalid_token for a %s token',
    async (kind) => {
      const token = await fake.issuer.tokens[kind]({ sub: ENGINEER, scope: 'impersonate:users' });
      const res = await request(setup().app)
        .post('/impersonations')
        .auth(token, { type: 'bearer' })
        .send(BODY);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
      expect(fake.subjectTokenRequests).toHaveLength(0);
    },
  );
});

describe('CORS and other routes', () => {
  const ORIGIN = 'http://127.0.0.1:4200';

  it('answers the console’s preflight and lets it read WWW-Authenticate', async () => {
    const { app } = setup({ corsOrigins: [ORIGIN] });
    const preflight = await request(app)
      .options('/impersonations')
      .set('origin', ORIGIN)
      .set('access-control-request-method', 'POST')
      .set('access-control-request-headers', 'authorization, content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-headers']).toBe('Authorization, Content-Type');
    const refused = await request(app).post('/impersonations').set('origin', ORIGIN).send(BODY);
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(refused.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  it('gives no CORS headers to another origin', async () => {
    const { app } = setup({ corsOrigins: [ORIGIN] });
    const res = await request(app)
      .options('/impersonations')
      .set('origin', 'http://evil.example')
      .set('access-control-request-method', 'POST');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves /health without a token and 404 JSON elsewhere', async () => {
    const { app } = setup();
    await request(app).get('/health').expect(200, { status: 'ok' });
    await request(app).get('/nope').expect(404, { error: 'not_found' });
  });
});
