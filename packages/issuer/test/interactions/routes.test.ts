/**
 * The sign-in and consent pages: messages that do not reveal accounts, suspension, CSRF, escaping,
 * consent for third-party applications, cancel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_MESSAGES } from '../../src/interactions/routes.js';
import { escapeHtml } from '../../src/interactions/views/layout.js';
import { Agent, type AgentResponse, authorizeUrl, hiddenField, pkce } from '../helpers/agent.js';
import { DRIVERS } from '../helpers/drivers.js';
import { loadWorld, PASSWORD, REDIRECT } from '../helpers/fixtures.js';
import { startIssuer, type TestIssuer } from '../helpers/issuer.js';

describe.each(DRIVERS)('%s', (driver) => {
  let t: TestIssuer;

  beforeAll(async () => {
    t = await startIssuer(driver);
    await loadWorld(t);
  });
  afterAll(() => t.close());

  /** Open the sign-in page for `clientId`; returns the agent, the page and its form action. */
  async function openLogin(clientId = 'web-app', scope = 'openid read:orders') {
    const agent = new Agent();
    const page = await agent.follow(
      await agent.get(
        authorizeUrl({
          baseUrl: t.baseUrl,
          clientId,
          redirectUri: REDIRECT,
          scope,
          resource: 'https://orders.example.com',
          codeChallenge: pkce().challenge,
        }),
      ),
      REDIRECT,
    );
    expect(page.status).toBe(200);
    const action = new URL(/<form method="post" action="([^"]+)"/.exec(page.text)![1]!, t.baseUrl).href;
    return { agent, page, action, csrf: hiddenField(page.text, 'csrf') };
  }

  const submit = (
    agent: Agent,
    action: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ) => agent.post(action, form, headers);

  describe('sign-in page', () => {
    it('renders a form with CSRF token and strict security headers', async () => {
      const { page } = await openLogin();
      expect(page.text).toContain('name="identifier"');
      expect(page.text).toContain('<strong>Web</strong>');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('cache-control')).toBe('no-store');
    });

    it('gives the same message and status for a wrong password and an unknown account', async () => {
      const wrong = await openLogin();
      const a = await submit(wrong.agent, wrong.action, {
        csrf: wrong.csrf,
        identifier: 'alice',
        password: 'wrong password!',
      });
      const unknown = await openLogin();
      const b = await submit(unknown.agent, unknown.action, {
        csrf: unknown.csrf,
        identifier: 'mallory',
        password: 'wrong password!',
      });
      expect(a.status).toBe(401);
      expect(b.status).toBe(401);
      expect(a.text).toContain(escapeHtml(LOGIN_MESSAGES.invalid));
      expect(b.text).toContain(escapeHtml(LOGIN_MESSAGES.invalid));
      const shape = (html: string) => html.replace(/(value|action)="[^"]*"/g, '');
      expect(shape(a.text)).toBe(shape(b.text));
    });

    it('reports suspension only after the correct password', async () => {
      const right = await openLogin();
      const suspended = await submit(right.agent, right.action, {
        csrf: right.csrf,
        identifier: 'bob',
        password: PASSWORD,
      });
      expect(suspended.status).toBe(401);
      expect(suspended.text).toContain(escapeHtml(LOGIN_MESSAGES.suspended));
      const wrong = await openLogin();
      const guessed = await submit(wrong.agent, wrong.action, {
        csrf: wrong.csrf,
        identifier: 'bob',
        password: 'not the password',
      });
      expect(guessed.text).toContain(escapeHtml(LOGIN_MESSAGES.invalid));
      expect(guessed.text).not.toContain('suspended');
    });

    it('accepts the email address, case-insensitively, and redirects with a code', async () => {
      const { agent, action, csrf } = await openLogin();
      const res = await agent.follow(
        await submit(agent, action, { csrf, identifier: 'ALICE@example.com', password: PASSWORD }),
        REDIRECT,
      );
      expect(res.location).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?code=/);
    });

    it('escapes what it echoes back', async () => {
      const { agent, action, csrf } = await openLogin();
      const res = await submit(agent, action, {
        csrf,
        identifier: '"><script>alert(1)</script>',
        password: 'x',
      });
      expect(res.text).not.toContain('<script>alert(1)</script>');
      expect(res.text).toContain('&quot;&gt;&lt;script&gt;');
    });

    it('refuses a POST without the CSRF token', async () => {
      const { agent, action } = await openLogin();
      const res = await submit(agent, action, { csrf: 'forged', identifier: 'alice', password: PASSWORD });
      expect(res.status).toBe(403);
      expect(res.location).toBeUndefined();
    });

    it('refuses a cross-site POST even with the right token', async () => {
      const { agent, action, csrf } = await openLogin();
      const cross = await submit(
        agent,
        action,
        { csrf, identifier: 'alice', password: PASSWORD },
        { origin: 'https://evil.example' },
      );
      expect(cross.status).toBe(403);
      const site = await submit(
        agent,
        action,
        { csrf, identifier: 'alice', password: PASSWORD },
        { 'sec-fetch-site': 'cross-site' },
      );
      expect(site.status).toBe(403);
    });

    it('refuses a POST from a browser without the interaction cookie (login CSRF)', async () => {
      const { action, csrf } = await openLogin();
      const res = await new Agent().post(action, { csrf, identifier: 'alice', password: PASSWORD });
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
    });

    it('cancel sends access_denied back to the application', async () => {
      const { agent, page } = await openLogin();
      const abort = new URL(/action="([^"]+\/abort)"/.exec(page.text)![1]!, t.baseUrl).href;
      const res = await agent.follow(
        await agent.post(abort, { csrf: hiddenField(page.text, 'csrf') }),
        REDIRECT,
      );
      expect(new URL(res.location!).searchParams.get('error')).toBe('access_denied');
    });

    it('shows consent to third-party applications and honours Allow', async () => {
      const { agent, action, csrf } = await openLogin('third-party', 'openid profile read:orders');
      const consent = await agent.follow(
        await submit(agent, action, { csrf, identifier: 'alice', password: PASSWORD }),
        REDIRECT,
      );
      expect(consent.status).toBe(200);
      expect(consent.text).toContain('Authorize access');
      expect(consent.text).toContain('<code>read:orders</code>');
      const allow = new URL(/action="([^"]+\/consent)"/.exec(consent.text)![1]!, t.baseUrl).href;
      const res = await agent.follow(
        await agent.post(allow, { csrf: hiddenField(consent.text, 'csrf') }),
        REDIRECT,
      );
      expect(res.location).toMatch(/^http:\/\/127\.0\.0\.1:8976\/callback\?code=/);
    });

    it('shows a clear page for an unknown or expired interaction', async () => {
      const res: AgentResponse = await new Agent().get(`${t.baseUrl}/interaction/doesnotexist`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('expired');
    });
  });
});
