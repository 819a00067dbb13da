/**
 * docs/impersonation.md "Webhooks": registering an endpoint through the Management API, a receiver
 * that checks every delivery with `verifyWebhookSignature` from `@gatehouse/issuer/webhooks` and drops
 * retries of an event it already handled, and the deliveries listing — against a real issuer and a real
 * loopback receiver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIssuer, type Issuer, type WebhookEvent } from '@gatehouse/issuer';
import { verifyWebhookSignature, WebhookSignatureError } from '@gatehouse/issuer/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let gatehouse: Issuer;
let issuer: string;
let managementToken: string;
let server: Server;
const handled: WebhookEvent[] = [];
const refused: number[] = [];

/** What the integrator does with an event (here: keep it for the test). */
function handle(event: WebhookEvent): void {
  handled.push(event);
}

function startReceiver(): Server {
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const event = verifyWebhookSignature({
          secret: process.env.GATEHOUSE_WEBHOOK_SECRET!,
          body: Buffer.concat(chunks), // the raw body: never re-serialized JSON
          header: req.headers['gatehouse-signature'],
        });
        if (!seen.has(event.id)) handle(event); // a retry carries the same event id
        seen.add(event.id);
        res.writeHead(204).end();
      } catch (err) {
        if (err instanceof WebhookSignatureError) refused.push(400);
        res.writeHead(err instanceof WebhookSignatureError ? 400 : 500).end();
      }
    });
  });
  return server;
}

beforeAll(async () => {
  gatehouse = await createIssuer({
    baseUrl: 'http://127.0.0.1:0',
    database: ':memory:',
    log: { level: 'silent' },
  });
  const { port } = await gatehouse.listen(0, '127.0.0.1');
  issuer = `http://127.0.0.1:${port}`;
  // A fresh issuer answers at its own address; the token's audience is its configured base URL.
  const basic = Buffer.from(`${gatehouse.admin.adminClientId}:${gatehouse.admin.adminClientSecret}`).toString(
    'base64',
  );
  const token = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: `${gatehouse.config.baseUrl}/api`,
    }),
  });
  managementToken = ((await token.json()) as { access_token: string }).access_token;
  server = startReceiver();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await gatehouse.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('docs/impersonation.md: webhooks', () => {
  it('registers an endpoint, receives signed events, and lists the deliveries', async () => {
    const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gatehouse`;
    const res = await fetch(`${issuer}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${managementToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: receiverUrl, // https://…, or http:// on localhost while developing
        events: ['token_exchange.succeeded', 'token_exchange.failed', 'impersonation.ended'],
        description: 'Security operations',
      }),
    });
    const { id, secret } = (await res.json()) as { id: string; secret: string }; // the secret is shown only now
    process.env.GATEHOUSE_WEBHOOK_SECRET = secret;
    expect(res.status).toBe(201);

    // A failed exchange (an unknown subject token) is an event the endpoint subscribed to.
    await gatehouse.seed({
      applications: [
        {
          name: 'Support',
          type: 'MachineToMachine',
          clientId: 'support',
          clientSecret: 's'.repeat(40),
          tokenExchangeEnabled: true,
        },
      ],
    });
    const exchange = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`support:${'s'.repeat(40)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: 'sub_not-a-real-token',
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }),
    });
    expect(exchange.status).toBe(400);
    for (let i = 0; handled.length === 0 && i < 200; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(handled[0]).toMatchObject({ type: 'token_exchange.failed', applicationId: 'support' });
    expect(handled[0]!.reason).toEqual(expect.any(String));
    expect(JSON.stringify(handled)).not.toContain('sub_not-a-real-token');

    const deliveries = await fetch(`${issuer}/api/webhooks/${id}/deliveries`, {
      headers: { authorization: `Bearer ${managementToken}` },
    });
    const page = (await deliveries.json()) as { items: Array<{ status: string; attempts: number }> };
    expect(page.items[0]).toMatchObject({ attempts: 1 });

    // A delivery signed with another secret is refused.
    const forged = await fetch(receiverUrl, {
      method: 'POST',
      headers: { 'gatehouse-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body: JSON.stringify(handled[0]),
    });
    expect(forged.status).toBe(400);
    expect(refused).toEqual([400]);
  });
});
