/**
 * A stand-in for the Gatehouse issuer as the backend sees it: a `@gatehouse/testing` issuer signs the
 * engineers' access tokens (discovery + JWKS through msw), and two msw handlers play the token endpoint
 * (client credentials) and `POST /api/subject-tokens`, recording what they received.
 */
import { createTestIssuer, onUnhandledRequest, type TestIssuer } from '@gatehouse/testing';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

export const ENDPOINT = 'https://id.gatehouse.test';
export const AUDIENCE = 'https://support-backend.gatehouse.test';
export const CLIENT = { id: 'support-backend', secret: 'backend-secret-0123456789abcdefghijklmnop' };

/** What the fake issuer saw and how it answers. */
export interface FakeIssuer {
  readonly issuer: TestIssuer;
  /** Client-credentials requests: their form parameters and whether the Basic credentials were right. */
  readonly tokenRequests: Array<{ params: Record<string, string>; authenticated: boolean }>;
  /** Subject-token requests: their JSON bodies and bearer tokens. */
  readonly subjectTokenRequests: Array<{ body: Record<string, unknown>; bearer: string | undefined }>;
  /** M2M tokens handed out so far (`m2m-1`, `m2m-2`, …); the fake Management API accepts only these. */
  readonly issued: string[];
  /** Tokens the Management API now refuses with 401 (as after a revocation). */
  readonly revoked: Set<string>;
  /** `expires_in` of the next M2M tokens. */
  expiresIn: number;
  /** Status and body of the next subject-token answers (default 201 with a fresh token). */
  next: { status: number; body: Record<string, unknown> } | undefined;
}

/** Start msw with the fake issuer; call `close()` in `afterAll`. */
export async function startFakeIssuer(): Promise<FakeIssuer & { close(): void; reset(): void }> {
  const issuer = await createTestIssuer({ issuer: `${ENDPOINT}/oidc`, audience: AUDIENCE });
  const fake: FakeIssuer = {
    issuer,
    tokenRequests: [],
    subjectTokenRequests: [],
    issued: [],
    revoked: new Set(),
    expiresIn: 3600,
    next: undefined,
  };
  let minted = 0;
  const server = setupServer(
    ...issuer.handlers,
    http.post(`${ENDPOINT}/oidc/token`, async ({ request }) => {
      const params = Object.fromEntries(new URLSearchParams(await request.text()));
      const expected = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;
      const authenticated = request.headers.get('authorization') === expected;
      fake.tokenRequests.push({ params, authenticated });
      if (!authenticated) return HttpResponse.json({ error: 'invalid_client' }, { status: 401 });
      const token = `m2m-${fake.issued.length + 1}`;
      fake.issued.push(token);
      return HttpResponse.json({
        access_token: token,
        token_type: 'Bearer',
        expires_in: fake.expiresIn,
        scope: params.scope,
      });
    }),
    http.post(`${ENDPOINT}/api/subject-tokens`, async ({ request }) => {
      const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
      const body = (await request.json()) as Record<string, unknown>;
      fake.subjectTokenRequests.push({ body, bearer });
      if (bearer === undefined || !fake.issued.includes(bearer) || fake.revoked.has(bearer)) {
        return HttpResponse.json({ code: 'invalid_token', message: 'Unauthorized' }, { status: 401 });
      }
      if (fake.next !== undefined) return HttpResponse.json(fake.next.body, { status: fake.next.status });
      minted++;
      return HttpResponse.json({ subjectToken: `sub_minted-${minted}`, expiresIn: 600 }, { status: 201 });
    }),
  );
  server.listen({ onUnhandledRequest });
  return Object.assign(fake, {
    close: () => server.close(),
    reset: () => {
      fake.tokenRequests.length = 0;
      fake.subjectTokenRequests.length = 0;
      fake.issued.length = 0;
      fake.revoked.clear();
      fake.expiresIn = 3600;
      fake.next = undefined;
    },
  });
}
