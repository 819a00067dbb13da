/**
 * The API samples of docs/step-up.md (RFC 9470): a route that needs a second factor within 5 minutes,
 * with `requireScope()` options (Express) and with `verify()` options, answering real requests with
 * tokens of the example issuer carrying `acr` and `auth_time`.
 */
import { createVerifier, InsufficientUserAuthenticationError } from '@gatehouse/core';
import { requireAuth, requireScope } from '@gatehouse/express';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer, useExampleIssuer } from './example-issuer.ts';

const issuer = await useExampleIssuer();
const MFA = 'urn:gatehouse:acr:mfa';
const now = () => Math.floor(Date.now() / 1000);

function paymentsApi() {
  const app = express();
  app.use(requireAuth({ issuer: 'https://id.example.com/oidc', audience: 'https://api.example.com' }));
  app.get('/payments', requireScope('read:payments'), (req, res) => {
    res.json({ payments: [], for: req.auth?.subject });
  });
  // Sending money needs a second factor (acr) within the last 5 minutes (auth_time).
  app.post(
    '/payments',
    requireScope('send:payments', { acrValues: ['urn:gatehouse:acr:mfa'], maxAge: 300 }),
    (req, res) => {
      res.status(201).json({ sent: true, by: req.auth?.subject, acr: req.auth?.claims.acr });
    },
  );
  return app;
}

async function sendMoney(token: string) {
  const verifier = createVerifier({
    issuer: 'https://id.example.com/oidc',
    audience: 'https://api.example.com',
  });
  try {
    const auth = await verifier.verify(token, {
      scopes: 'send:payments',
      acrValues: ['urn:gatehouse:acr:mfa'],
      maxAge: 300,
    });
    return { sent: true, by: auth.subject };
  } catch (err) {
    if (err instanceof InsufficientUserAuthenticationError) {
      // err.acrValues, err.maxAge: what the client must sign in with; err.headers carries the challenge
      return { stepUp: { acrValues: err.acrValues, maxAge: err.maxAge }, headers: err.headers };
    }
    throw err;
  }
}

describe('docs/step-up.md', () => {
  const scope = 'read:payments send:payments';

  it('a password sign-in reads, but cannot send: 401 with the step-up challenge', async () => {
    const app = paymentsApi();
    const token = await issuer.sign({
      sub: 'alice',
      scope,
      acr: 'urn:gatehouse:acr:password',
      auth_time: now() - 60,
    });
    expect((await request(app).get('/payments').set(bearer(token))).status).toBe(200);
    const res = await request(app).post('/payments').set(bearer(token));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('insufficient_user_authentication');
    expect(res.headers['www-authenticate']).toContain(`acr_values="${MFA}", max_age="300"`);
  });

  it('a second factor an hour ago is too old; a recent one sends', async () => {
    const app = paymentsApi();
    const old = await issuer.sign({ sub: 'alice', scope, acr: MFA, auth_time: now() - 3600 });
    expect((await request(app).post('/payments').set(bearer(old))).status).toBe(401);
    const fresh = await issuer.sign({ sub: 'alice', scope, acr: MFA, auth_time: now() - 10 });
    const res = await request(app).post('/payments').set(bearer(fresh));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ sent: true, by: 'alice', acr: MFA });
  });

  it('verify() takes the same options and throws InsufficientUserAuthenticationError', async () => {
    const weak = await issuer.sign({ sub: 'alice', scope, acr: 'urn:gatehouse:acr:password' });
    const refused = await sendMoney(weak);
    expect(refused.stepUp).toEqual({ acrValues: [MFA], maxAge: 300 });
    expect(refused.headers?.['www-authenticate']).toContain('error="insufficient_user_authentication"');
    const strong = await issuer.sign({ sub: 'alice', scope, acr: MFA, auth_time: now() });
    expect(await sendMoney(strong)).toEqual({ sent: true, by: 'alice' });
  });
});
