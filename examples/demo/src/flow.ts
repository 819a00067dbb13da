/**
 * The demo's scripted flow: start a test issuer (discovery + JWKS on loopback) and the Express orders
 * API from examples/express-api, then send every kind of request a protected API meets and report what
 * came back. `run.ts` prints it; the test asserts it.
 *
 * Until the reference issuer's impersonation flow lands, tokens come from `@gatehouse/testing`'s test
 * issuer, which signs exactly the RFC 9068 tokens (with RFC 8693 `act`) the reference issuer will issue.
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import { createTestIssuer } from '@gatehouse/testing';
import { createApp } from '../../express-api/src/app.ts';

export const AUDIENCE = 'https://api.gatehouse.test/orders';
export const CUSTOMER = 'customer-42';
export const ENGINEER = 'support-7';

/** One request of the flow and what the API answered. */
export interface Step {
  readonly title: string;
  readonly request: string;
  readonly status: number;
  readonly challenge: string | null;
  readonly body: unknown;
  /** Audit lines the API wrote while handling this request. */
  readonly audit: readonly Record<string, unknown>[];
}

/** What the flow ran against. */
export interface FlowContext {
  readonly issuer: string;
  readonly api: string;
}

/**
 * Run the whole flow; `onStep` sees each step as it completes. Servers are closed before it returns.
 *
 * @example
 * ```ts
 * const steps = await runFlow((step) => console.log(step.title, step.status));
 * ```
 */
export async function runFlow(
  onStep: (step: Step) => void = () => {},
  onStart: (context: FlowContext) => void = () => {},
): Promise<Step[]> {
  const issuer = await createTestIssuer({
    audience: AUDIENCE,
    subject: CUSTOMER,
    clientId: 'support-console',
  });
  const issuerServer = await issuer.listen();
  const auditLines: Record<string, unknown>[] = [];
  const app = createApp({
    issuer: issuer.issuer,
    audience: AUDIENCE,
    logger: {
      info: (line) => auditLines.push(JSON.parse(line)),
      error: (line) => auditLines.push(JSON.parse(line)),
    },
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onStart({ issuer: issuer.issuer, api });

  const steps: Step[] = [];
  async function call(
    title: string,
    method: string,
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<Step> {
    const before = auditLines.length;
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${api}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const step: Step = {
      title,
      request: `${method} ${path}`,
      status: res.status,
      challenge: res.headers.get('www-authenticate'),
      body: text.length === 0 ? null : JSON.parse(text),
      audit: auditLines.slice(before),
    };
    steps.push(step);
    onStep(step);
    return step;
  }

  try {
    const reader = await issuer.sign({ scope: 'read:orders' });
    const writer = await issuer.sign({ scope: 'read:orders write:orders' });
    const impersonation = await issuer.impersonation(ENGINEER, { scope: 'read:orders write:orders' });

    await call('A request without a token', 'GET', '/orders');
    await call('The customer places an order (write:orders)', 'POST', '/orders', writer, {
      item: 'tea',
      quantity: 2,
    });
    await call('The customer lists orders (read:orders)', 'GET', '/orders', reader);
    await call('A read-only token tries to place an order', 'POST', '/orders', reader, {
      item: 'cake',
      quantity: 1,
    });
    await call(
      `Support engineer ${ENGINEER} impersonates ${CUSTOMER} and lists orders`,
      'GET',
      '/orders',
      impersonation,
    );
    const created = steps[1]?.body as { id?: string } | undefined;
    await call(
      'Under impersonation, deleting an order is refused',
      'DELETE',
      `/orders/${created?.id ?? 'x'}`,
      impersonation,
    );
    await call('An expired token', 'GET', '/orders', await issuer.tokens.expired({ scope: 'read:orders' }));
    await call(
      'A token for another API (audience)',
      'GET',
      '/orders',
      await issuer.tokens.wrongAudience({ scope: 'read:orders' }),
    );
    await call(
      'A forged signature',
      'GET',
      '/orders',
      await issuer.tokens.tamperedSignature({ scope: 'read:orders' }),
    );
    await call('alg: none', 'GET', '/orders', await issuer.tokens.algNone({ scope: 'read:orders' }));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await issuerServer.close();
  }
  return steps;
}
