/**
 * The demo's scripted flow, against a running {@link World}: what the support console does when a
 * support engineer helps a customer, done headlessly with `@gatehouse/client` in Node.
 *
 * 1. The engineer signs in (authorization code + PKCE; the sign-in form is posted by the script).
 * 2. The console asks the integrator's backend to impersonate the customer (userId, reason, ticketId).
 * 3. The backend gets a subject token from the Management API (with its cached M2M token).
 * 4. The console exchanges it (RFC 8693), with the engineer's own token as actor token and a DPoP
 *    proof (RFC 9449): the impersonation token is bound to the console's key.
 * 5. The console calls the orders API (DPoP); its audit line shows sub = customer, act.sub = engineer.
 * 6. A stolen copy of the impersonation token is refused: as a Bearer token, and with a thief's key.
 * 7–8. The subject token cannot be exchanged twice; the impersonation token works nowhere else.
 * 9. The support lead ends the impersonation (Management API): the orders API, which asks the issuer
 *    about impersonation tokens (introspection, `delegated` mode), refuses it at its next request.
 * 10. The issuer's audit trail names the engineer in every event.
 * 7. A second exchange of the same subject token is refused.
 * 8. The impersonation token at a resource it was not issued for is refused.
 * 9. The issuer's audit trail lists what happened.
 *
 * Each step reports what happened and whether it is what Gatehouse promises; `run.ts` prints the
 * steps, the test asserts them. Nothing here ever reports a token, a code or a secret.
 *
 * @module
 */
import { createClient, isClientError } from '@gatehouse/client';
import { PEOPLE, SCOPES } from './seed.ts';
import { signInHeadlessly } from './sign-in.ts';
import type { LogLine, World } from './world.ts';

/** One step of the flow. */
export interface Step {
  readonly title: string;
  /** What was sent and what came back, one line each. */
  readonly lines: readonly string[];
  /** The promised outcome, in words (shown with ✓ or ✗). */
  readonly expected: string;
  readonly ok: boolean;
}

/** Facts the flow established, for tests. */
export interface FlowFacts {
  signedInAs?: string;
  backendStatus?: number;
  subjectTokenExpiresIn?: number;
  backendEvents?: readonly LogLine[];
  exchanged?: { sub: unknown; act: unknown; aud: unknown; scope: unknown; expiresIn: number };
  orders?: { status: number; audit: readonly LogLine[] };
  /** The impersonation token's `cnf.jkt`, and the console key's thumbprint. */
  binding?: { jkt: unknown; thumbprint: string | undefined; tokenType: string | undefined };
  /** A stolen copy: sent as Bearer, and with a thief's own DPoP key. */
  stolen?: { asBearer: { status: number; error?: string }; withOtherKey: { status: number; error?: string } };
  replay?: { error?: string | undefined; description?: string | undefined };
  wrongResource?: { status: number; challenge: string | null };
  /** The support lead ends the impersonation; the orders API's next answer to the token. */
  ended?: { status: number; endedTokens: unknown; orders: number; error: string | undefined };
  auditTrail?: readonly string[];
  /** `details.jti` of the issuer's `token_exchange.succeeded` event. */
  exchangeJti?: unknown;
}

/** Everything the flow did. */
export interface FlowResult {
  readonly steps: readonly Step[];
  readonly facts: FlowFacts;
  readonly ok: boolean;
}

/** The claims of a JWT, for display only (the APIs verify the token; the demo only shows it). */
function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

/**
 * Run the flow once. `onStep` sees each step as it completes; a step that throws ends the flow with a
 * failed step (the servers keep running; closing them is the caller's job).
 *
 * @example
 * ```ts
 * const world = await startWorld({ ports: { issuer: 0, api: 0, backend: 0, console: 0 } });
 * const { ok, steps } = await runFlow(world, (step) => console.log(step.ok ? '✓' : '✗', step.title));
 * await world.close();
 * ```
 */
export async function runFlow(world: World, onStep: (step: Step) => void = () => {}): Promise<FlowResult> {
  const steps: Step[] = [];
  const facts: FlowFacts = {};
  const who = (id: unknown) =>
    id === world.users.customer
      ? `${PEOPLE.customer.username} (${id})`
      : id === world.users.engineer
        ? `${PEOPLE.engineer.username} (${id})`
        : String(id);
  const record = (title: string, expected: string, ok: boolean, lines: string[]) => {
    const step = { title, expected, ok, lines };
    steps.push(step);
    onStep(step);
    return ok;
  };

  const client = createClient({
    endpoint: world.urls.issuer,
    allowInsecureRequests: true, // plain HTTP, loopback only
    clientId: world.consoleClientId,
    redirectUri: world.redirectUri,
    resources: [world.resources.orders, world.resources.backend],
    scopes: [SCOPES.impersonate, SCOPES.read],
    dpop: true, // every token the console gets is bound to its own non-extractable key
  });
  const { engineer, customer } = { engineer: PEOPLE.engineer, customer: PEOPLE.customer };

  let current = 'start';
  try {
    // 1. Sign in.
    current = `${engineer.username}, a support engineer, signs in to the support console`;
    const authorizationUrl = await client.signIn();
    const callback = await signInHeadlessly(
      authorizationUrl,
      world.redirectUri,
      engineer.username,
      engineer.password,
    );
    const idClaims = await client.handleSignInCallback(callback);
    facts.signedInAs = idClaims.sub;
    const backendToken = claimsOf(await client.getAccessToken(world.resources.backend));
    record(current, `signed in as ${engineer.username}`, idClaims.sub === world.users.engineer, [
      `GET  ${world.urls.oidc}/auth  (authorization code + PKCE S256, resources: orders API, support backend)`,
      `POST ${world.urls.issuer}/interaction/…  sign-in form: ${engineer.username} / ${engineer.password}`,
      `POST ${world.urls.oidc}/token  code → ID token + refresh token; per-API access tokens on demand`,
      `signed in as ${who(idClaims.sub)}; token for the support backend: scope "${backendToken.scope}"`,
    ]);

    // 2 and 3. Ask the backend; it mints the subject token through the Management API.
    current = `The console asks the support backend to impersonate ${customer.username}`;
    const before = world.lines.backend.length;
    const request = { userId: world.users.customer, reason: PEOPLE.reason, ticketId: PEOPLE.ticketId };
    const asked = await client.fetch(world.resources.backend, `${world.urls.backend}/impersonations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    const minted = (await asked.json()) as { subjectToken?: string; expiresIn?: number; error?: string };
    facts.backendStatus = asked.status;
    facts.subjectTokenExpiresIn = minted.expiresIn;
    record(current, '201 from the backend', asked.status === 201, [
      `POST ${world.urls.backend}/impersonations  ${JSON.stringify(request)}`,
      `     Authorization: DPoP <${engineer.username}'s token for the backend, scope ${SCOPES.impersonate}>  DPoP: <proof>`,
      `→ ${asked.status}${minted.error === undefined ? '' : ` ${minted.error}`}`,
    ]);
    const events = world.lines.backend.slice(before);
    facts.backendEvents = events;
    const m2m = events.find((e) => e.event === 'm2m_token.obtained');
    const granted = events.find((e) => e.event === 'impersonation.granted');
    current = 'The backend gets a subject token from the Management API';
    record(
      current,
      'a single-use subject token, bound to the engineer',
      granted !== undefined && minted.subjectToken !== undefined,
      [
        m2m === undefined
          ? 'M2M token: from the backend’s cache'
          : `POST ${world.urls.oidc}/token  client_credentials, scope "${m2m.scope}" → M2M token, cached for ${m2m.expiresIn} s`,
        `POST ${world.urls.issuer}/api/subject-tokens  { userId, context: { ticketId: "${PEOPLE.ticketId}", reason, engineerId }, actorId, applicationId }`,
        `→ 201 { subjectToken, expiresIn: ${minted.expiresIn} }  (returned to the console; stored by the issuer as a SHA-256 digest)`,
      ],
    );
    if (minted.subjectToken === undefined) throw new Error('no subject token');
    const subjectToken = minted.subjectToken;

    // 4. Exchange, with the engineer's OpenID token as actor token.
    current = 'The console exchanges the subject token, with the engineer’s token as actor token';
    const exchanged = await client.exchangeSubjectToken({
      subjectToken,
      resource: world.resources.orders,
      scopes: [SCOPES.read],
      actorToken: await client.getAccessToken(),
    });
    const claims = claimsOf(exchanged.accessToken);
    facts.exchanged = {
      sub: claims.sub,
      act: claims.act,
      aud: claims.aud,
      scope: claims.scope,
      expiresIn: exchanged.expiresIn ?? 0,
    };
    const act = claims.act as { sub?: unknown } | undefined;
    const jkt = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
    const thumbprint = await client.dpopThumbprint();
    facts.binding = { jkt, thumbprint, tokenType: exchanged.tokenType };
    record(
      current,
      `sub = ${customer.username}, act.sub = ${engineer.username}, bound to the console's DPoP key`,
      claims.sub === world.users.customer &&
        act?.sub === world.users.engineer &&
        jkt !== undefined &&
        jkt === thumbprint,
      [
        `POST ${world.urls.oidc}/token  grant_type=urn:ietf:params:oauth:grant-type:token-exchange  DPoP: <proof signed by the console's key>`,
        `     subject_token=<the subject token>  actor_token=<${engineer.username}'s OpenID access token>  resource=${world.resources.orders}  scope=${SCOPES.read}`,
        `→ 200 ${exchanged.tokenType.toLowerCase() === 'dpop' ? 'DPoP-bound' : exchanged.tokenType} access token: sub ${who(claims.sub)}, act.sub ${who(act?.sub)}, aud ${String(claims.aud)}, scope "${String(claims.scope)}", cnf.jkt ${String(jkt)}, ${exchanged.expiresIn} s, no refresh token`,
      ],
    );

    // 5. Call the orders API as the customer.
    current = `The console calls the orders API as ${customer.username}`;
    const auditBefore = world.lines.api.length;
    const orders = await client.fetch({ accessToken: exchanged.accessToken }, `${world.urls.api}/orders`);
    const ordersBody = await orders.json();
    const audit = world.lines.api.slice(auditBefore);
    facts.orders = { status: orders.status, audit };
    const line = audit[0];
    record(
      current,
      `200, and an audit line with sub = ${customer.username}, act.sub = ${engineer.username}`,
      orders.status === 200 && line?.subject === world.users.customer && line?.actor === world.users.engineer,
      [
        `GET  ${world.urls.api}/orders  Authorization: DPoP <the impersonation token>  DPoP: <a fresh proof>`,
        `→ ${orders.status} ${JSON.stringify(ordersBody)}`,
        line === undefined
          ? 'no audit line was written'
          : `audit: ${JSON.stringify({ event: line.event, method: line.method, path: line.path, sub: line.subject, 'act.sub': line.actor, client_id: line.clientId, scopes: line.scopes })}`,
      ],
    );

    // 6. Someone copies the impersonation token out of a log or a browser extension.
    current = 'A stolen copy of the impersonation token is used';
    const asBearer = await fetch(`${world.urls.api}/orders`, {
      headers: { authorization: `Bearer ${exchanged.accessToken}` },
    });
    const thief = createClient({
      endpoint: world.urls.issuer,
      allowInsecureRequests: true,
      clientId: world.consoleClientId,
      redirectUri: world.redirectUri,
      resources: [world.resources.orders],
      scopes: [SCOPES.read],
      dpop: true, // the thief's own key: it can sign proofs, but not with the console's key
    });
    const withOtherKey = await thief.fetch(
      { accessToken: exchanged.accessToken },
      `${world.urls.api}/orders`,
    );
    const errorOf = async (res: Response) => ((await res.json()) as { error?: string }).error;
    facts.stolen = {
      asBearer: { status: asBearer.status, error: await errorOf(asBearer) },
      withOtherKey: { status: withOtherKey.status, error: await errorOf(withOtherKey) },
    };
    record(
      current,
      'refused both ways: it only works with a proof from the console’s key',
      asBearer.status === 401 && withOtherKey.status === 401,
      [
        `GET  ${world.urls.api}/orders  Authorization: Bearer <the stolen token>`,
        `→ ${asBearer.status} ${facts.stolen.asBearer.error ?? ''}: the token is DPoP-bound and cannot be used as a bearer token`,
        `GET  ${world.urls.api}/orders  Authorization: DPoP <the stolen token>  DPoP: <a proof from the thief's own key>`,
        `→ ${withOtherKey.status} ${facts.stolen.withOtherKey.error ?? ''}: the proof key is not the key the token is bound to`,
      ],
    );

    // 7. The same subject token again.
    current = 'The same subject token is exchanged a second time';
    let replay: { error?: string; description?: string; status?: number } = {};
    try {
      await client.exchangeSubjectToken({
        subjectToken,
        resource: world.resources.orders,
        scopes: [SCOPES.read],
        actorToken: await client.getAccessToken(),
      });
    } catch (err) {
      if (!isClientError(err)) throw err;
      replay = { error: err.error, description: err.errorDescription, status: err.status };
    }
    facts.replay = { error: replay.error, description: replay.description };
    record(current, 'refused: subject tokens are single use', replay.error === 'invalid_request', [
      `POST ${world.urls.oidc}/token  grant_type=…token-exchange  subject_token=<the same subject token>`,
      replay.error === undefined
        ? '→ 200: a second token was issued'
        : `→ ${replay.status ?? 400} ${replay.error}: ${replay.description ?? ''}`,
    ]);

    // 8. The impersonation token where it does not belong.
    current = 'The impersonation token is sent to a resource it was not issued for';
    const elsewhere = await client.fetch(
      { accessToken: exchanged.accessToken },
      `${world.urls.backend}/impersonations`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      },
    );
    const elsewhereBody = (await elsewhere.json()) as { error?: string; error_description?: string };
    const challenge = elsewhere.headers.get('www-authenticate');
    facts.wrongResource = { status: elsewhere.status, challenge };
    record(
      current,
      'refused: its audience is the orders API only',
      elsewhere.status === 401 && (challenge ?? '').includes('error="invalid_token"'),
      [
        `POST ${world.urls.backend}/impersonations  Authorization: DPoP <the impersonation token, aud ${world.resources.orders}>`,
        `→ ${elsewhere.status} ${elsewhereBody.error ?? ''}: ${elsewhereBody.error_description ?? ''}`,
      ],
    );

    // 9. The support lead ends the impersonation: the orders API refuses the token at once.
    current = 'The support lead ends the impersonation';
    const exchangedEvent = (await auditTrail(world)).find(
      (event) => event.type === 'token_exchange.succeeded',
    );
    const subjectTokenId = (exchangedEvent?.details as { subjectTokenId?: unknown } | undefined)
      ?.subjectTokenId;
    const ended = await fetch(`${world.urls.issuer}/api/impersonations/end`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await adminToken(world)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ subjectTokenId }),
    });
    const endedBody = (await ended.json()) as { endedTokens?: unknown };
    const after = await client.fetch({ accessToken: exchanged.accessToken }, `${world.urls.api}/orders`);
    const afterBody = (await after.json()) as { error?: string; error_description?: string };
    facts.ended = {
      status: ended.status,
      endedTokens: endedBody.endedTokens,
      orders: after.status,
      error: afterBody.error,
    };
    record(
      current,
      'ended at the issuer: the orders API refuses the token at its next request, though it has not expired',
      ended.status === 200 &&
        endedBody.endedTokens === 1 &&
        after.status === 401 &&
        afterBody.error === 'invalid_token',
      [
        `POST ${world.urls.issuer}/api/impersonations/end  {"subjectTokenId":"…"}  (Management API, administrator's M2M token)`,
        `→ ${ended.status} ${JSON.stringify(endedBody)}`,
        `GET  ${world.urls.api}/orders  Authorization: DPoP <the impersonation token>  DPoP: <a fresh proof from the console's key>`,
        `→ ${after.status} ${afterBody.error ?? ''}: ${afterBody.error_description ?? ''} (the API asked the issuer: no longer active)`,
      ],
    );

    // 10. The issuer's audit trail.
    current = 'The issuer’s audit trail records who did what';
    const trail = await auditTrail(world);
    facts.auditTrail = trail.map((event) => event.type);
    facts.exchangeJti = (
      trail.find((event) => event.type === 'token_exchange.succeeded')?.details as { jti?: unknown }
    )?.jti;
    const types = new Set(facts.auditTrail);
    record(
      current,
      'the subject token, the exchange, the refused replay and the end of the impersonation',
      types.has('subject_token.created') &&
        types.has('token_exchange.succeeded') &&
        types.has('token_exchange.failed') &&
        types.has('impersonation.ended'),
      [
        `GET  ${world.urls.issuer}/api/audit-events?userId=…  (Management API, administrator's M2M token)`,
        ...trail
          .slice()
          .reverse()
          .map(
            (event) =>
              `${event.type.padEnd(26)} user ${who(event.userId)}, actor ${who(event.actorId)}${event.reason ? `, reason ${event.reason}` : ''}${(event.details as { context?: { ticketId?: string } })?.context?.ticketId ? `, ticket ${(event.details as { context: { ticketId: string } }).context.ticketId}` : ''}`,
          ),
      ],
    );
  } catch (err) {
    const message = isClientError(err)
      ? `${err.error}: ${err.errorDescription ?? err.message}`
      : err instanceof Error
        ? err.message
        : String(err);
    record(current, 'no error', false, [`failed: ${message}`]);
  }
  return { steps, facts, ok: steps.length === 10 && steps.every((step) => step.ok) };
}

interface AuditEvent {
  type: string;
  userId?: string | null;
  actorId?: string | null;
  reason?: string | null;
  details?: unknown;
}

/** A Management API token of the demo administrator (client credentials). */
async function adminToken(world: World): Promise<string> {
  const basic = Buffer.from(`${world.admin.clientId}:${world.admin.clientSecret}`).toString('base64');
  const tokenRes = await fetch(`${world.urls.oidc}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: `${world.urls.issuer}/api` }),
  });
  const { access_token: token } = (await tokenRes.json()) as { access_token?: string };
  if (token === undefined) throw new Error(`administrator token: HTTP ${tokenRes.status}`);
  return token;
}

/** The customer's audit events, through the Management API with the demo administrator's credentials. */
async function auditTrail(world: World): Promise<AuditEvent[]> {
  const res = await fetch(
    `${world.urls.issuer}/api/audit-events?userId=${encodeURIComponent(world.users.customer)}&pageSize=20`,
    {
      headers: { authorization: `Bearer ${await adminToken(world)}` },
    },
  );
  if (res.status !== 200) throw new Error(`audit events: HTTP ${res.status}`);
  return ((await res.json()) as { items: AuditEvent[] }).items;
}
