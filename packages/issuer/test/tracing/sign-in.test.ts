/**
 * Traces of a browser-free sign-in (authorization code + PKCE, the login form posted as a browser
 * would) on a real issuer, SQLite and PostgreSQL: each request a SERVER span named after its route
 * (interaction ids masked), the provider's interaction phases and the sign-in check as children, the
 * statements under them, the code and the tokens issued; nothing secret in any span (password, code,
 * verifier, tokens, client secret, interaction id, user id); a failed sign-in's audit event carrying
 * the trace id of its request.
 */
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/index.js';
import { Agent, codeOf, pkce, signIn, tokenRequest } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD, REDIRECT, SECRETS } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { openSignInForm } from '../helpers/sign-in.js';
import { childrenOf, descendants, leaks, startTracing, type Tracing, tree } from '../helpers/tracing.js';

const S = TRACING_NAMES.spans;

describe.each(DRIVERS)('%s', (driver) => {
  let tracing: Tracing;
  let t: TestIssuer;

  beforeAll(async () => {
    tracing = startTracing();
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(async () => {
    await t?.close();
    await tracing.stop();
  });
  beforeEach(() => tracing.reset());

  const servers = (all: readonly ReadableSpan[]) => all.filter((span) => span.kind === SpanKind.SERVER);

  it('sign-in and code exchange: a span per request, the provider phases and the sign-in check under them', async () => {
    const agent = new Agent();
    const { verifier, challenge } = pkce();
    const res = await signIn(agent, {
      baseUrl: t.baseUrl,
      clientId: 'web-app',
      redirectUri: REDIRECT,
      scope: 'openid',
      identifier: 'alice',
      password: PASSWORD,
      codeChallenge: challenge,
    });
    const code = codeOf(res);
    const tokens = await tokenRequest(
      t.baseUrl,
      { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT },
      { clientId: 'web-app', clientSecret: SECRETS.web },
    );
    expect(tokens.status).toBe(200);

    const all = await tracing.spans();
    const names = servers(all).map((span) => span.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /oidc/auth',
        'GET /interaction/{uid}',
        'POST /interaction/{uid}/login',
        'GET /oidc/auth/{uid}',
        'POST /oidc/token',
      ]),
    );
    const byName = (name: string) => servers(all).find((span) => span.name === name)!;

    const page = byName('GET /interaction/{uid}');
    expect(page.attributes).toMatchObject({
      'http.route': '/interaction/{uid}',
      'url.path': '/interaction/:uid',
    });
    expect(childrenOf(all, page).map((span) => span.name)).toContain(S.interactionDetails);

    const login = byName('POST /interaction/{uid}/login');
    const phases = childrenOf(all, login);
    expect(
      phases.map((span) => span.name),
      tree(all, login),
    ).toEqual(expect.arrayContaining([S.interactionDetails, S.signIn, S.interactionFinish]));
    const check = phases.find((span) => span.name === S.signIn)!;
    expect(check.attributes).toEqual({ 'gatehouse.sign_in.outcome': 'success' });
    expect(descendants(all, check).some((span) => span.attributes['db.collection.name'] === 'users')).toBe(
      true,
    );
    // The interaction is the provider's: its lookups are statements under the details phase.
    const details = phases.find((span) => span.name === S.interactionDetails)!;
    expect(
      descendants(all, details).some((span) => span.kind === SpanKind.CLIENT),
      tree(all, login),
    ).toBe(true);

    const resume = byName('GET /oidc/auth/{uid}');
    expect(resume.attributes['http.route']).toBe('/oidc/auth/{uid}');
    expect(
      descendants(all, resume)
        .filter((span) => span.name === S.issue)
        .map((span) => span.attributes['gatehouse.oidc.model']),
      tree(all, resume),
    ).toContain('AuthorizationCode');

    const exchange = byName('POST /oidc/token');
    const grant = childrenOf(all, exchange).find((span) => span.name === S.grant)!;
    expect(grant.attributes['gatehouse.oauth.grant_type']).toBe('authorization_code');
    expect(
      descendants(all, grant)
        .filter((span) => span.name === S.issue)
        .map((span) => span.attributes['gatehouse.oidc.model']),
    ).toContain('AccessToken');

    const alice = (await t.issuer.store.users.findByLogin('alice'))!.id;
    const secrets = [
      PASSWORD,
      code,
      verifier,
      SECRETS.web,
      alice,
      ...[tokens.body.access_token, tokens.body.id_token, tokens.body.refresh_token]
        .filter((value): value is string => typeof value === 'string')
        .flatMap((value) => [value, ...value.split('.')]),
      // The session and interaction cookies (the interaction's id among them).
      ...agent.cookies.values(),
    ];
    expect(leaks(all, secrets)).toEqual([]);
  });

  it('a failed sign-in: 401, the outcome on the check span, its audit event with the trace id', async () => {
    const form = await openSignInForm(t.baseUrl);
    tracing.reset();
    const wrong = 'not alices password at all';
    const res = await form.attempt('alice', wrong);
    expect(res.status).toBe(401);
    const all = await tracing.spans();
    const login = servers(all).find((span) => span.name === 'POST /interaction/{uid}/login')!;
    expect(login.attributes['http.response.status_code']).toBe(401);
    expect(login.status.code).toBe(0);
    const check = childrenOf(all, login).find((span) => span.name === S.signIn)!;
    expect(check.attributes['gatehouse.sign_in.outcome']).not.toBe('success');
    expect(leaks(all, [wrong, ...form.agent.cookies.values()])).toEqual([]);
    const { items } = await t.issuer.store.auditEvents.list(
      { type: 'sign_in.failed' },
      { page: 1, pageSize: 1 },
    );
    expect(items[0]?.traceId).toBe(login.spanContext().traceId);
  });
});
