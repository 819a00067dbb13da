/**
 * The demo's scripted flow, as CI runs it: a real issuer on SQLite in a temporary directory, the
 * orders API, the support backend and the console page on free loopback ports, and the whole
 * impersonation flow through them. Every credential that crosses the network is recorded, and none may
 * appear in what the demo prints, in the API's and backend's log lines, or in the issuer's log.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_ROLES } from '@gatehouse/issuer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlowResult, runFlow } from '../src/flow.ts';
import { formatServing, formatStart, formatStep, formatSummary, painter } from '../src/print.ts';
import { PEOPLE } from '../src/seed.ts';
import type { World } from '../src/world.ts';
import { recordCredentials, startTestWorld } from './helpers.ts';

let world: World;
let result: FlowResult;
let printed: string;
let issuerLog: string;
let credentials: ReturnType<typeof recordCredentials>;

beforeAll(async () => {
  credentials = recordCredentials();
  world = await startTestWorld();
  const p = painter(false);
  const out = [formatStart(world, p)];
  result = await runFlow(world, (step) => out.push(formatStep(out.length, step, p)));
  out.push(formatSummary(result.ok, result.steps.length, p), formatServing(world, p));
  printed = out.join('\n');
  issuerLog = readFileSync(join(world.dataDir, 'issuer.log'), 'utf8');
});

afterAll(async () => {
  credentials?.restore();
  await world?.close();
});

describe('the demo flow', () => {
  it('behaves as promised at every one of its 10 steps', () => {
    expect(result.steps.map((step) => [step.title, step.ok])).toEqual([
      ['sam, a support engineer, signs in to the support console', true],
      ['The console asks the support backend to impersonate alice', true],
      ['The backend gets a subject token from the Management API', true],
      ['The console exchanges the subject token, with the engineer’s token as actor token', true],
      ['The console calls the orders API as alice', true],
      ['A stolen copy of the impersonation token is used', true],
      ['The same subject token is exchanged a second time', true],
      ['The impersonation token is sent to a resource it was not issued for', true],
      ['The support lead ends the impersonation', true],
      ['The issuer’s audit trail records who did what', true],
    ]);
    expect(result.ok).toBe(true);
  });

  it('ends the impersonation at the issuer, and the orders API refuses the unexpired token at its next request', () => {
    expect(result.facts.ended).toEqual({ status: 200, endedTokens: 1, orders: 401, error: 'invalid_token' });
  });

  it('signs the engineer in, and the backend mints a subject token with its own cached M2M token', () => {
    const { facts } = result;
    expect(facts.signedInAs).toBe(world.users.engineer);
    expect([facts.backendStatus, facts.subjectTokenExpiresIn]).toEqual([201, 600]);
    expect(facts.backendEvents!.map((e) => e.event)).toEqual(['m2m_token.obtained', 'impersonation.granted']);
    expect(facts.backendEvents![0]).toMatchObject({ scope: 'subject-tokens:create' });
    expect(facts.backendEvents![1]).toMatchObject({
      engineerId: world.users.engineer,
      userId: world.users.customer,
      ticketId: PEOPLE.ticketId,
      applicationId: world.consoleClientId,
    });
  });

  it('exchanges for a token of the customer with the engineer as actor, for the orders API only', () => {
    expect(result.facts.exchanged).toEqual({
      sub: world.users.customer,
      act: { sub: world.users.engineer },
      aud: world.resources.orders,
      scope: 'read:orders',
      expiresIn: 300,
    });
  });

  it("binds the impersonation token to the console's DPoP key, and a stolen copy is refused both ways", () => {
    const { binding, stolen } = result.facts;
    expect(binding!.tokenType?.toLowerCase()).toBe('dpop'); // token_type is case-insensitive (RFC 6749 §7.1)
    expect(binding!.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(binding!.jkt).toBe(binding!.thumbprint);
    expect(stolen).toEqual({
      asBearer: { status: 401, error: 'invalid_token' },
      withOtherKey: { status: 401, error: 'invalid_token' },
    });
  });

  it('the orders API answers 200 and its audit line shows sub = customer, act.sub = engineer', () => {
    const { orders } = result.facts;
    expect(orders!.status).toBe(200);
    expect(orders!.audit).toHaveLength(1);
    expect(orders!.audit[0]).toMatchObject({
      event: 'impersonation',
      method: 'GET',
      path: '/orders',
      subject: world.users.customer,
      actor: world.users.engineer,
      actorChain: [world.users.engineer],
      delegated: true,
      clientId: world.consoleClientId,
    });
  });

  it('refuses the second exchange and the token at another resource', () => {
    expect(result.facts.replay).toEqual({
      error: 'invalid_request',
      description: 'the subject token has already been used',
    });
    expect(result.facts.wrongResource!.status).toBe(401);
    expect(result.facts.wrongResource!.challenge).toContain('error="invalid_token"');
  });

  it('ties the API’s audit line to the issuer’s exchange event by the token’s jti', () => {
    expect(typeof result.facts.exchangeJti).toBe('string');
    expect(result.facts.orders!.audit[0]!.jti).toBe(result.facts.exchangeJti);
  });

  it('finds the creation, the exchange, the refused replay and the end in the issuer’s audit trail', () => {
    expect([...result.facts.auditTrail!].sort()).toEqual([
      'impersonation.ended',
      'subject_token.created',
      'token_exchange.failed',
      'token_exchange.succeeded',
    ]);
  });

  it("serves the issuer's admin console, and its printed administrator holds the console administrator role", async () => {
    const page = await fetch(`${world.urls.issuer}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const admin = await world.issuer.store.users.findByLogin(PEOPLE.administrator.username);
    const roles = await world.issuer.store.roles.listFor({ userId: admin!.id });
    expect(roles.map((role) => role.name)).toEqual([CONSOLE_ROLES.administrator.name]);
  });

  it("prints where the issuer's metrics are, and they count the flow's token exchange", async () => {
    const url = /metrics {4}(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(printed)?.[1];
    expect(url).toBeDefined();
    const page = await (await fetch(url!)).text();
    expect(page).toMatch(/^gatehouse_issuer_token_exchanges_total\{gatehouse_outcome="ok",[^}]*\} 1$/m);
    // The refused replay of step 8, with its reason.
    expect(page).toMatch(
      /^gatehouse_issuer_token_exchanges_total\{gatehouse_outcome="error",gatehouse_error_reason="subject_token_consumed",[^}]*\} 1$/m,
    );
  });

  it('says how to see its traces (no OTLP collector given: none sent)', () => {
    expect(printed).toContain('traces     none sent: start with OTEL_EXPORTER_OTLP_ENDPOINT=');
  });

  it('prints each step and the demo credentials, but never a token, a code or a secret', () => {
    expect(printed).toContain('1. sam, a support engineer, signs in to the support console');
    expect(printed).toContain('act.sub');
    expect(printed).toContain(`sam / ${PEOPLE.engineer.password}`);
    expect(printed).toContain(`${world.urls.console}/`);
    expect(printed).toContain(`${world.urls.issuer}/console/`);
    expect(printed).toContain(`admin / ${PEOPLE.administrator.password}`);
    expect(credentials.values.size).toBeGreaterThan(5); // the recorder really saw the flow's credentials
    const logs = [printed, issuerLog, JSON.stringify(world.lines)].join('\n');
    for (const value of credentials.values) {
      if (value === PEOPLE.engineer.password) continue; // demo data, printed on purpose
      expect(logs.includes(value), `a credential (${value.slice(0, 6)}…) appears in the output or logs`).toBe(
        false,
      );
    }
    expect(logs).not.toContain(world.admin.clientSecret);
    expect(logs).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  });
});

describe('closing the world', () => {
  it('stops every server and deletes the data directory', async () => {
    const other = await startTestWorld();
    expect(existsSync(join(other.dataDir, 'issuer.sqlite'))).toBe(true);
    await other.close();
    expect(existsSync(other.dataDir)).toBe(false);
    await expect(fetch(`${other.urls.console}/`)).rejects.toThrow();
  });
});
