/**
 * Runs every row of the conformance table against real Express, Fastify and Koa servers on loopback
 * and checks (a) each answer against the row's expectation and (b) that the three answers are
 * identical: status, `WWW-Authenticate`, `Retry-After`, content type and body bytes (catalogue case 51).
 */
import {
  type AuthError,
  type AuthErrorReason,
  createVerifier,
  type ErrorContext,
  ForbiddenError,
  InsufficientScopeError,
  InvalidRequestError,
  InvalidTokenError,
  type InvalidTokenReason,
  KeysUnavailableError,
  MissingTokenError,
  resourceMetadataUrl,
  type Verifier,
} from '@gatehouse/core';
import { createTestIssuer, type TestIssuer } from '@gatehouse/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  type Expectation,
  FRAMEWORKS,
  type Framework,
  INJECTION,
  mintTokens,
  ROWS,
  type Row,
  type RunningApp,
  START,
  SUBJECT,
  send,
  type TestResponse,
  type Tokens,
  VARIANTS,
  type Variant,
} from '../src/index.js';

const METADATA_URL = resourceMetadataUrl(AUDIENCE);
const METADATA_PATH = new URL(METADATA_URL).pathname;
const RESOURCE_METADATA = { scopesSupported: ['read:users', 'write:users'], resourceName: 'Conformance API' };

interface Deployment {
  readonly app: RunningApp;
  readonly verifier: Verifier;
  /** Key fetches the app's verifier has attempted. */
  readonly fetches: () => number;
}

let issuer: TestIssuer;
let tokens: Tokens;
const deployments = new Map<string, Deployment>();
const deployment = (framework: Framework, variant: Variant) => deployments.get(`${framework}/${variant}`)!;

async function deploy(framework: Framework, variant: Variant): Promise<Deployment> {
  let count = 0;
  const counted: typeof fetch = (input, init) => {
    count++;
    return issuer.fetch(input, init);
  };
  const unreachable: typeof fetch = async () => {
    count++;
    throw new TypeError('fetch failed');
  };
  const verifier = createVerifier({
    ...issuer.verifierOptions(),
    fetch: variant === 'outage' ? unreachable : counted,
    ...(variant === 'sources' ? { tokenSources: { query: true, body: true } } : {}),
    ...(variant === 'metadata' ? { resourceMetadata: METADATA_URL } : {}),
  });
  const app = await START[framework]({
    verifier,
    resourceMetadata: variant === 'metadata' ? RESOURCE_METADATA : undefined,
    maxHeaderSize: variant === 'large' ? 256 * 1024 : undefined,
  });
  return { app, verifier, fetches: () => count };
}

beforeAll(async () => {
  issuer = await createTestIssuer({ audience: AUDIENCE });
  tokens = await mintTokens(issuer);
  for (const framework of FRAMEWORKS) {
    for (const variant of VARIANTS)
      deployments.set(`${framework}/${variant}`, await deploy(framework, variant));
  }
});

afterAll(async () => {
  await Promise.all([...deployments.values()].map((d) => d.app.close()));
});

/** The error core would raise for an expectation, with the variant's challenge context. */
function expectedError(expectation: Expectation, context: ErrorContext): AuthError | undefined {
  if ('bare' in expectation) return new MissingTokenError(context);
  if ('unavailable' in expectation) return new KeysUnavailableError(1, context);
  if (!('reason' in expectation)) return undefined;
  const reason: AuthErrorReason = expectation.reason;
  switch (reason) {
    case 'multiple_tokens':
    case 'bad_syntax':
      return new InvalidRequestError(reason, context);
    case 'insufficient_scope':
      return new InsufficientScopeError(expectation.scope?.split(' ') ?? [], 'all', context);
    case 'delegation_not_allowed':
      return new ForbiddenError(reason, context);
    default:
      return new InvalidTokenError(reason as InvalidTokenReason, context);
  }
}

/**
 * `Bearer k="v", …, DPoP k="v", …` → one `{ k: v }` per scheme; fails unless the header is exactly that
 * shape (no stray quotes, CR or LF).
 */
function parseChallenges(header: string | string[] | undefined): Record<string, Record<string, string>> {
  expect(typeof header, 'one WWW-Authenticate header').toBe('string');
  const schemes: Record<string, Record<string, string>> = {};
  const parts = (header as string).split(/(?:^|, )(?=(?:Bearer|DPoP)(?: |$))/).filter((p) => p !== '');
  for (const part of parts) {
    const [scheme = '', body = ''] = part.split(/ (.*)/s);
    const params: Record<string, string> = {};
    for (const [, name, value] of body.matchAll(/([a-z_]+)="([^"\\\r\n]*)"/g)) params[name!] = value!;
    const rebuilt = Object.entries(params).map(([k, v]) => `${k}="${v}"`);
    expect(part, 'well-formed challenge').toBe(
      rebuilt.length === 0 ? scheme : `${scheme} ${rebuilt.join(', ')}`,
    );
    schemes[scheme] = params;
  }
  return schemes;
}

/** The `Bearer` challenge's attributes. */
const parseChallenge = (header: string | string[] | undefined) => parseChallenges(header).Bearer ?? {};

function checkResponse(res: TestResponse, row: Row, context: ErrorContext): void {
  const { expect: expectation } = row;
  expect(res.status, 'status').toBe(expectation.status);
  expect(res.headers['set-cookie'], 'no header injected').toBeUndefined();
  expect(res.body).not.toContain('stolen');
  if (expectation.status === 431) {
    // Answered by Node (Fastify by its own clientError handler, with a JSON body) before any adapter runs.
    expect(res.headers['content-type'] ?? 'application/json').toMatch(/^application\/json/);
    return;
  }

  expect(res.headers['content-type'], 'JSON, never HTML').toBe('application/json; charset=utf-8');
  const json = JSON.parse(res.body);
  if ('body' in expectation) {
    expect(json).toEqual(expectation.body);
    expect(res.headers['www-authenticate']).toBeUndefined();
    return;
  }

  const error = expectedError(expectation, context)!;
  expect(error.status, 'the table agrees with core').toBe(expectation.status);
  expect(json).toEqual(error.toJSON());
  expect(Object.keys(json)).toEqual(['error', 'error_description']);
  if ('unavailable' in expectation) {
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    return;
  }
  expect(res.headers['retry-after']).toBeUndefined();
  const challenges = parseChallenges(res.headers['www-authenticate']);
  const params = challenges.Bearer ?? {};
  const where = context.resourceMetadata === undefined ? {} : { resource_metadata: context.resourceMetadata };
  // DPoP is allowed (the default): the DPoP challenge advertises the proof algorithms.
  expect(challenges.DPoP).toEqual({ realm: 'api', algs: 'ES256 EdDSA RS256 PS256', ...where });
  if ('bare' in expectation) {
    expect(params).toEqual({ realm: 'api', ...where });
  } else {
    expect(params).toEqual({
      realm: 'api',
      error: expectation.error,
      error_description: error.description,
      ...(expectation.scope === undefined ? {} : { scope: expectation.scope }),
      ...where,
    });
  }
  expect(res.headers['www-authenticate']).toBe(error.wwwAuthenticate);
  expect(res.headers['www-authenticate']).not.toContain(INJECTION.slice(0, 2));
}

/** The parts of a response that must be identical across frameworks. */
const comparable = (res: TestResponse) => ({
  status: res.status,
  'www-authenticate': res.headers['www-authenticate'],
  'retry-after': res.headers['retry-after'],
  'content-type': res.headers['content-type'],
  'access-control-allow-origin': res.headers['access-control-allow-origin'],
  body: res.body,
});

const title = (row: Row) =>
  `${row.catalogue.length === 0 ? 'happy' : row.catalogue.map((n) => `A${n}`).join(' ')} [${row.variant}] ${row.name}`;

describe('conformance: Express, Fastify and Koa answer every row identically', () => {
  it.each(ROWS.map((row) => [title(row), row] as const))('%s', async (_title, row) => {
    const responses: Record<string, Partial<ReturnType<typeof comparable>>> = {};
    for (const framework of FRAMEWORKS) {
      const { app, verifier, fetches } = deployment(framework, row.variant);
      const before = fetches();
      const res = await send(app.url, row.request(tokens));
      try {
        checkResponse(res, row, verifier.context);
      } catch (err) {
        (err as Error).message = `${framework}: ${(err as Error).message}`;
        throw err;
      }
      if (row.variant === 'outage' && row.expect.status !== 503) {
        expect(fetches() - before, `${framework}: answered without fetching keys (0F)`).toBe(0);
      }
      responses[framework] = row.expect.status === 431 ? { status: res.status } : comparable(res);
    }
    expect(responses.fastify, 'Fastify = Express').toEqual(responses.express);
    expect(responses.koa, 'Koa = Express').toEqual(responses.express);
  });

  it('covers every catalogue case the issue lists', () => {
    const covered = new Set(ROWS.flatMap((row) => row.catalogue));
    for (const n of [1, 2, 3, 4, 5, 7, 44, 48, 49]) expect(covered, `case A${n}`).toContain(n);
    for (const variant of VARIANTS)
      expect(
        ROWS.some((row) => row.variant === variant),
        variant,
      ).toBe(true);
  });

  it.each(FRAMEWORKS)('%s keeps serving after refusing 100 KB of headers', async (framework) => {
    const { app } = deployment(framework, 'default');
    // Node answers 431 and closes the connection; with request bytes still unread, the close can arrive
    // as a reset before the client reads the 431. Either way the server must stay up.
    const outcome = await send(app.url, {
      path: '/me',
      headers: { authorization: `Bearer ${tokens.huge}` },
    }).then(
      (res) => res.status,
      (err: NodeJS.ErrnoException) => err.code,
    );
    expect([431, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    const res = await send(app.url, { path: '/me', headers: { authorization: `Bearer ${tokens.full}` } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ subject: SUBJECT });
  });
});

describe('conformance: RFC 9728 protected resource metadata', () => {
  const expected = {
    resource: AUDIENCE,
    authorization_servers: [] as string[],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: ['ES256', 'EdDSA', 'RS256', 'PS256'],
    scopes_supported: ['read:users', 'write:users'],
    resource_name: 'Conformance API',
  };

  it(`serves ${METADATA_PATH} without a token, identically`, async () => {
    expected.authorization_servers = [issuer.issuer];
    const answers = [];
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'metadata').app.url, { path: METADATA_PATH });
      expect(res.status, framework).toBe(200);
      expect(res.headers['content-type'], framework).toBe('application/json; charset=utf-8');
      expect(res.headers['access-control-allow-origin'], framework).toBe('*');
      expect(JSON.parse(res.body), framework).toEqual(expected);
      answers.push(comparable(res));
    }
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('names the served document in every challenge', async () => {
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'metadata').app.url, { path: '/me' });
      expect(parseChallenge(res.headers['www-authenticate']).resource_metadata, framework).toBe(METADATA_URL);
    }
  });

  it('does not serve the document when none is configured', async () => {
    for (const framework of FRAMEWORKS) {
      const res = await send(deployment(framework, 'default').app.url, { path: METADATA_PATH });
      expect(res.status, framework).toBe(404);
    }
  });
});
