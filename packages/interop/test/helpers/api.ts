/**
 * The Gatehouse-protected API every client calls with the token it got: Express 5 with
 * `@gatehouse/express` on loopback. `GET /orders` needs `read:orders` on its audience and answers who
 * the token is for (subject, client, actor, scopes, and whether it is sender-constrained by DPoP).
 */
import { type RequireAuthOptions, requireAuth, requireScope } from '@gatehouse/express';
import express from 'express';
import { type Listening, listen } from './servers.js';

/** What `GET /orders` answers. */
export interface OrdersAnswer {
  readonly subject: string | null;
  readonly clientId: string | null;
  readonly actor: string | null;
  readonly scopes: readonly string[];
  readonly dpop: boolean;
}

/** Start the API for `audience`, trusting tokens of `issuer` (`options`: more of `requireAuth`'s). */
export async function startOrdersApi(
  issuer: string,
  audience: string,
  options: Partial<RequireAuthOptions> = {},
): Promise<Listening> {
  const app = express();
  // CORS for browser clients of the suite's pages (any loopback origin; the API is not under test here).
  app.use((req, res, next) => {
    const origin = req.headers.origin;
    if (origin !== undefined && /^http:\/\/(?:127\.0\.0\.1|localhost):\d+$/.test(origin)) {
      res.set('access-control-allow-origin', origin);
      res.set('access-control-allow-headers', 'authorization, dpop');
      res.set('access-control-expose-headers', 'www-authenticate');
    }
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    next();
  });
  app.use(requireAuth({ ...options, issuer, audience } as RequireAuthOptions));
  app.get('/orders', requireScope('read:orders'), (req, res) => {
    const auth = req.auth!;
    const answer: OrdersAnswer = {
      subject: auth.subject ?? null,
      clientId: auth.clientId ?? null,
      actor: auth.actor?.sub ?? null,
      scopes: auth.scopes,
      dpop: auth.confirmation?.jkt !== undefined,
    };
    res.json(answer);
  });
  return listen(app);
}

/** `GET {api}/orders` with `Authorization: Bearer <token>`: the status and the JSON body. */
export async function callOrders(
  api: string,
  token: string,
): Promise<{ status: number; body: Readonly<Record<string, unknown>> }> {
  const res = await fetch(`${api}/orders`, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : { text } };
}
