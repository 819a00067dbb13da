/**
 * The suite's deployments and answer checks, shared by the tests of `cases.test.ts`: every framework ×
 * variant is deployed on loopback with its own verifier, and each answer is compared with the error
 * core itself builds for the row's expectation, with the deployment's challenge context.
 */
import {
  type AuthError,
  type AuthErrorReason,
  createVerifier,
  type DpopProofReason,
  type ErrorContext,
  ForbiddenError,
  InsufficientRoleError,
  InsufficientScopeError,
  InsufficientUserAuthenticationError,
  InvalidDpopProofError,
  InvalidRequestError,
  InvalidTokenError,
  type InvalidTokenReason,
  KeysUnavailableError,
  MissingTokenError,
  resourceMetadataUrl,
  UseDpopNonceError,
  type Verifier,
} from '@gatehouse/core';
import type { TestCertificate, TestIssuer } from '@gatehouse/testing';
import { expect } from 'vitest';
import {
  type AnyVariant,
  type AppSetup,
  AUDIENCE,
  type CatalogueCase,
  DPOP_VARIANT_CONFIG,
  type Expectation,
  type Framework,
  INJECTION,
  type RunningApp,
  type SendContext,
  START,
  type TestResponse,
  type VariantConfig,
} from '../src/index.js';

export const METADATA_URL = resourceMetadataUrl(AUDIENCE);
export const METADATA_PATH = new URL(METADATA_URL).pathname;
const RESOURCE_METADATA = { scopesSupported: ['read:users', 'write:users'], resourceName: 'Conformance API' };
/** The default proof algorithms, as the `DPoP` challenge's `algs` must list them. */
export const DEFAULT_ALGS = 'ES256 EdDSA RS256 PS256';

export interface Deployment {
  readonly app: RunningApp;
  readonly verifier: Verifier;
  /** Key fetches the app's verifier has attempted. */
  readonly fetches: () => number;
  /** The proof algorithms the variant configured, space-separated (what `algs` must say). */
  readonly algs: string;
  /** The deployment's current nonce and the CA of its https certificate, for `send()`. */
  sendContext(): SendContext;
}

/** What a deployment needs from the run. */
export interface DeployEnv {
  readonly issuer: TestIssuer;
  /** The https certificate of TLS variants (its `ca` is what clients trust). */
  readonly serverCertificate: TestCertificate;
}

/**
 * Deploy the suite's app for `variant` on `framework`, with a verifier of its own; `start` replaces the
 * framework's starter (the Request-based targets of runtimes.test.ts).
 */
export async function deploy(
  env: DeployEnv,
  framework: Framework,
  variant: AnyVariant,
  start: (setup: AppSetup) => Promise<RunningApp> = START[framework],
): Promise<Deployment> {
  const { issuer, serverCertificate } = env;
  let count = 0;
  const counted: typeof fetch = (input, init) => {
    count++;
    return issuer.fetch(input, init);
  };
  const unreachable: typeof fetch = async () => {
    count++;
    throw new TypeError('fetch failed');
  };
  const config: VariantConfig = variant in DPOP_VARIANT_CONFIG ? DPOP_VARIANT_CONFIG[variant as never] : {};
  const verifier = createVerifier({
    ...issuer.verifierOptions(),
    fetch: variant === 'outage' ? unreachable : counted,
    ...(variant === 'sources' ? { tokenSources: { query: true, body: true } } : {}),
    ...(variant === 'metadata' ? { resourceMetadata: METADATA_URL } : {}),
    ...(config.dpop === undefined ? {} : { dpop: config.dpop }),
    ...(config.mtls === undefined ? {} : { mtls: config.mtls }),
  });
  const app = await start({
    verifier,
    resourceMetadata: variant === 'metadata' ? RESOURCE_METADATA : undefined,
    maxHeaderSize: variant === 'large' ? 256 * 1024 : undefined,
    origin: config.origin,
    trustProxy: config.trustProxy,
    tls: config.tls === true ? serverCertificate : undefined,
  });
  const algs = config.dpop?.algorithms?.join(' ') ?? DEFAULT_ALGS;
  const ca = config.tls === true ? serverCertificate.ca.certificate : undefined;
  return {
    app,
    verifier,
    algs,
    fetches: () => count,
    sendContext: () => ({ nonce: verifier.dpopNonce(), ca }),
  };
}

/** Whether an expectation's error is reported in the `DPoP` challenge (the request used that scheme). */
const usesDpop = (expectation: Expectation): boolean =>
  'error' in expectation &&
  (expectation.scheme === 'dpop' ||
    expectation.error === 'invalid_dpop_proof' ||
    expectation.error === 'use_dpop_nonce');

/**
 * The error core would raise for an expectation, with the deployment's challenge context (and
 * `scheme: 'dpop'` for a DPoP-scheme request). `nonce` is the one a `use_dpop_nonce` answer carries.
 */
export function expectedError(
  expectation: Expectation,
  context: ErrorContext,
  nonce = '',
): AuthError | undefined {
  if ('bare' in expectation) return new MissingTokenError(context);
  if ('unavailable' in expectation) return new KeysUnavailableError(1, context);
  if (!('reason' in expectation)) return undefined;
  const ctx = usesDpop(expectation) ? { ...context, scheme: 'dpop' as const } : context;
  const reason: AuthErrorReason = expectation.reason;
  switch (reason) {
    case 'multiple_tokens':
    case 'bad_syntax':
      return new InvalidRequestError(reason, ctx);
    case 'insufficient_scope':
      return new InsufficientScopeError(expectation.scope?.split(' ') ?? [], 'all', ctx);
    case 'insufficient_role':
      return new InsufficientRoleError([], 'all', ctx);
    case 'delegation_not_allowed':
      return new ForbiddenError(reason, ctx);
    case 'acr_not_accepted':
    case 'auth_time_too_old':
      return new InsufficientUserAuthenticationError(
        reason,
        {
          acrValues: expectation.acrValues?.split(' '),
          maxAge: expectation.maxAge === undefined ? undefined : Number(expectation.maxAge),
        },
        ctx,
      );
    case 'dpop_nonce':
      return new UseDpopNonceError(nonce, ctx);
    default:
      if (reason.startsWith('dpop_') && reason !== 'dpop_binding')
        return new InvalidDpopProofError(reason as DpopProofReason, ctx);
      return new InvalidTokenError(reason as InvalidTokenReason, ctx);
  }
}

/**
 * `Bearer k="v", …, DPoP k="v", …` → one `{ k: v }` per scheme; fails unless the header is exactly that
 * shape (no stray quotes, CR or LF).
 */
export function parseChallenges(
  header: string | string[] | undefined,
): Record<string, Record<string, string>> {
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

/** What an answer is checked against besides the row: the deployment's view. */
export interface Answering {
  readonly context: ErrorContext;
  /** The proof algorithms the `DPoP` challenge must advertise. */
  readonly algs: string;
  /** The nonces a `use_dpop_nonce` answer may carry: the deployment's current one, before and after. */
  readonly nonces: readonly (string | undefined)[];
}

/** Check one answer against the row's expectation and core's own error for it. */
export function checkResponse(res: TestResponse, expectation: Expectation, answering: Answering): void {
  const { context } = answering;
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
  const isNonce = 'error' in expectation && expectation.error === 'use_dpop_nonce';
  if (isNonce) {
    expect(res.headers['dpop-nonce'], 'a DPoP-Nonce header').toBeTypeOf('string');
    expect(answering.nonces, "DPoP-Nonce is the verifier's current nonce").toContain(
      res.headers['dpop-nonce'],
    );
  } else {
    expect(res.headers['dpop-nonce'], 'DPoP-Nonce only with use_dpop_nonce').toBeUndefined();
  }
  if ('body' in expectation) {
    expect(json).toEqual(expectation.body);
    expect(res.headers['www-authenticate']).toBeUndefined();
    return;
  }

  const error = expectedError(expectation, context, res.headers['dpop-nonce'] as string)!;
  expect(error.status, 'the table agrees with core').toBe(expectation.status);
  expect(json).toEqual(error.toJSON());
  expect(Object.keys(json)).toEqual(['error', 'error_description']);
  if ('unavailable' in expectation) {
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    return;
  }
  expect(res.headers['retry-after']).toBeUndefined();

  // The challenges, from the table's own rules (RFC 9449 §7.1): `Bearer` unless DPoP is required,
  // `DPoP` with `algs` unless it is disabled; the error in the challenge of the scheme the request used
  // (always `DPoP` when it is required), the other one bare.
  const mode = context.dpop?.mode ?? 'disabled';
  const where: Record<string, string> =
    context.resourceMetadata === undefined ? {} : { resource_metadata: context.resourceMetadata };
  const attributes =
    'bare' in expectation
      ? {}
      : {
          error: expectation.error,
          error_description: error.description,
          ...(expectation.scope === undefined ? {} : { scope: expectation.scope }),
          ...(expectation.acrValues === undefined ? {} : { acr_values: expectation.acrValues }),
          ...(expectation.maxAge === undefined ? {} : { max_age: expectation.maxAge }),
        };
  const errorInDpop = mode === 'required' || usesDpop(expectation);
  const expected: Record<string, Record<string, string>> = {};
  if (mode !== 'required') expected.Bearer = { realm: 'api', ...(errorInDpop ? {} : attributes), ...where };
  if (mode !== 'disabled')
    expected.DPoP = { realm: 'api', ...(errorInDpop ? attributes : {}), algs: answering.algs, ...where };
  expect(parseChallenges(res.headers['www-authenticate'])).toEqual(expected);
  expect(res.headers['www-authenticate']).toBe(error.wwwAuthenticate);
  expect(res.headers['www-authenticate']).not.toContain(INJECTION.slice(0, 2));
}

/** The parts of a response that must be identical across frameworks. */
export const comparable = (res: TestResponse) => ({
  status: res.status,
  'www-authenticate': res.headers['www-authenticate'],
  'retry-after': res.headers['retry-after'],
  'dpop-nonce': res.headers['dpop-nonce'],
  'content-type': res.headers['content-type'],
  'access-control-allow-origin': res.headers['access-control-allow-origin'],
  body: res.body,
});

/** `A4`, `D12`…, or `happy`. */
export const caseLabel = (catalogue: readonly CatalogueCase[]) =>
  catalogue.length === 0 ? 'happy' : catalogue.map((c) => (typeof c === 'number' ? `A${c}` : c)).join(' ');
