// The support console's impersonation flow, free of the page (so Node tests can run it too).
// Tokens stay inside this function: what it reports has claims and statuses, never a token.

/** A refused step: `step` says which ("backend", "exchange", "orders"). */
export class StepError extends Error {
  constructor(step, status, message) {
    super(message);
    this.name = 'StepError';
    this.step = step;
    this.status = status;
  }
}

/** The claims of a JWT, for display only (the API verifies the token; the page never trusts this). */
export function readClaims(jwt) {
  const payload = jwt.split('.')[1] ?? '';
  const base64 = payload.replaceAll('-', '+').replaceAll('_', '/');
  const json = new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
  return JSON.parse(json);
}

/**
 * Act as `request.userId`:
 * 1. ask the integrator's backend, with the engineer's token for it, for a subject token;
 * 2. exchange it at the issuer, with the engineer's own OpenID token as actor token;
 * 3. call the orders API with the impersonation token.
 * `onStep(name, detail)` is told after each step.
 *
 * @param {{
 *   client: { getAccessToken(resource?: string): Promise<string>, exchangeSubjectToken(request: object): Promise<{ accessToken: string, scopes: readonly string[] }> },
 *   backend: { url: string, resource: string },
 *   orders: { url: string, resource: string, scopes: readonly string[] },
 *   request: { userId: string, reason: string, ticketId: string },
 *   onStep?: (name: 'backend' | 'exchange' | 'orders', detail: Record<string, unknown>) => void,
 *   fetch?: typeof globalThis.fetch,
 * }} options
 */
export async function impersonate({
  client,
  backend,
  orders,
  request,
  onStep = () => {},
  fetch = globalThis.fetch,
}) {
  const asked = await fetch(`${backend.url}/impersonations`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await client.getAccessToken(backend.resource)}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(request),
  });
  const answer = await asked.json().catch(() => ({}));
  if (asked.status !== 201) {
    throw new StepError('backend', asked.status, answer.error_description ?? answer.error ?? 'refused');
  }
  onStep('backend', { status: asked.status, expiresIn: answer.expiresIn });

  let exchanged;
  try {
    exchanged = await client.exchangeSubjectToken({
      subjectToken: answer.subjectToken,
      resource: orders.resource,
      scopes: orders.scopes,
      actorToken: await client.getAccessToken(), // the engineer's OpenID Connect access token
    });
  } catch (err) {
    throw new StepError(
      'exchange',
      err.status ?? 0,
      `${err.error ?? 'error'}: ${err.errorDescription ?? err.message}`,
    );
  }
  const { sub, act, aud, scope, exp } = readClaims(exchanged.accessToken);
  onStep('exchange', { sub, act, aud, scope, exp });

  const res = await fetch(`${orders.url}/orders`, {
    headers: { authorization: `Bearer ${exchanged.accessToken}` },
  });
  const body = await res.json().catch(() => null);
  onStep('orders', { status: res.status, body });
  return { subject: sub, actor: act?.sub, scopes: exchanged.scopes, orders: { status: res.status, body } };
}
