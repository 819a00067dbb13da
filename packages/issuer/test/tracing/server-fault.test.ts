/**
 * A server fault in a traced request: a custom-claims function that throws makes the token exchange a
 * 500. The request span is ERROR with `error.type` 500, the grant span ERROR naming the error's class,
 * and nothing of the function's message (which holds a configured value) reaches a span. Fault
 * handling does not depend on the storage driver: SQLite only.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACING_NAMES } from '../../src/index.js';
import { writeClaimsModules } from '../customize/fixtures.js';
import {
  ACCESS_TOKEN_TYPE,
  exchange,
  loadExchangeWorld,
  mintSubjectToken,
  userId,
} from '../helpers/exchange.js';
import { loadWorld, ORDERS } from '../helpers/fixtures.js';
import { adminToken, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { childrenOf, leaks, startTracing, type Tracing } from '../helpers/tracing.js';

describe('a server fault', () => {
  let tracing: Tracing;
  let t: TestIssuer;

  beforeAll(async () => {
    tracing = startTracing();
    t = await startIssuer('sqlite', {
      customJwtClaims: {
        module: writeClaimsModules().module,
        environmentVariables: { TENANT: 'acme' },
        timeout: 2_000,
        workers: 1,
      },
    });
    await loadWorld(t);
    await loadExchangeWorld(t);
  });
  afterAll(async () => {
    await t?.close();
    await tracing.stop();
  });

  it('is ERROR on the request and the grant, by class and status only', async () => {
    const admin = await adminToken(t);
    const subjectToken = await mintSubjectToken(t, admin, {
      userId: await userId(t, 'alice'),
      context: { mode: 'throw' },
    });
    tracing.reset();
    const res = await exchange(t, {
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: ORDERS,
    });
    expect(res.status).toBe(500);
    const all = await tracing.spans();
    const server = all.find((span) => span.kind === SpanKind.SERVER)!;
    expect(server.name).toBe('POST /oidc/token');
    expect(server.status.code).toBe(SpanStatusCode.ERROR);
    expect(server.attributes).toMatchObject({
      'http.response.status_code': 500,
      'error.type': '500',
      'gatehouse.oauth.error': 'server_error',
    });
    const grant = childrenOf(all, server).find((span) => span.name === TRACING_NAMES.spans.grant)!;
    expect(grant.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(grant.attributes['error.type']).toBe('CustomClaimsError');
    expect(leaks(all, ['secret-stack', 'secret-stack-acme', subjectToken])).toEqual([]);
  });
});
