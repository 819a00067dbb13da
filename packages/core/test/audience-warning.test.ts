/**
 * A token refused for its audience is told to the developer (src/audience-warning.ts, issue #29 item
 * 9): clients get the same fixed 401, while `onWarning` gets one {@link AudienceMismatchError} per
 * cause per `DEFAULTS.warningInterval`, naming the issuer, the audiences the tokens name (bounded and
 * printable, they are not the verifier's to choose) and those the option accepts — never a token.
 * Against a real loopback JWKS server; time moves with a fake `Date` only.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AudienceMismatchError,
  createVerifier,
  DEFAULTS,
  InvalidTokenError,
  KeySetError,
  type VerifierOptions,
} from '../src/index.js';
import { AUDIENCE, claims, ISSUER, jwksOf, makeKey, signToken } from './helpers/fixtures.js';
import { startIntrospectionServer } from './helpers/introspection-server.js';
import { type JwksServer, startJwksServer } from './helpers/jwks-server.js';

const key = makeKey('ES256', 'audience-warning-1');
let server: JwksServer;
beforeAll(async () => {
  server = await startJwksServer(jwksOf(key));
});
afterAll(() => server.close());
afterEach(() => {
  vi.useRealTimers();
});

const ADVICE =
  'Audiences are compared exactly: make the "audience" option what the tokens name, or have clients ask the issuer for tokens for this API (its "resource" or "audience" parameter).';
const ADVICE_NONE =
  'Have clients ask the issuer for tokens for this API (its "resource" or "audience" parameter), and make the "audience" option what those tokens name.';
const HEAD = `tokens of issuer "${ISSUER}" are refused for their audience (401 invalid_token)`;

/** A verifier for `audience` whose warnings are collected. */
function watched(audience: string | readonly string[], options: Partial<VerifierOptions> = {}) {
  const warnings: KeySetError[] = [];
  const verifier = createVerifier({
    issuer: ISSUER,
    audience,
    jwksUri: server.jwksUri,
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  return { verifier, warnings };
}

const tokenFor = (aud: unknown) => signToken(key, claims({ aud }));

/** The token must be refused with the fixed `audience` answer, which names nothing. */
async function refused(verifier: ReturnType<typeof createVerifier>, token: string): Promise<void> {
  const error = await verifier.verify(token).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  expect((error as InvalidTokenError).reason).toBe('audience');
  expect((error as InvalidTokenError).toJSON()).toEqual({
    error: 'invalid_token',
    error_description: 'The access token is not intended for this resource',
  });
}

describe('a token refused for its audience is told once through onWarning', () => {
  it('a trailing slash: the whole message, the warning fields, once for many tokens, nothing for valid ones', async () => {
    const { verifier, warnings } = watched(AUDIENCE);
    for (let i = 0; i < 3; i++) await refused(verifier, tokenFor(`${AUDIENCE}/`));
    await expect(verifier.verify(tokenFor(AUDIENCE))).resolves.toMatchObject({ audience: [AUDIENCE] });

    expect(warnings).toHaveLength(1);
    const warning = warnings[0]!;
    expect(warning.message).toBe(
      `${HEAD}: they name "${AUDIENCE}/", the "audience" option accepts "${AUDIENCE}". They differ only by a trailing slash. ${ADVICE}`,
    );
    expect(warning).toBeInstanceOf(AudienceMismatchError);
    expect(warning).toBeInstanceOf(KeySetError);
    expect(warning).toMatchObject({
      name: 'AudienceMismatchError',
      code: 'audience_mismatch',
      kind: 'configuration',
      issuer: ISSUER,
      url: undefined,
      audiences: [`${AUDIENCE}/`],
      accepted: [AUDIENCE],
    });
  });

  it('the same cause is told again once DEFAULTS.warningInterval has passed, not before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const { verifier, warnings } = watched(AUDIENCE);
    await refused(verifier, tokenFor(`${AUDIENCE}/`));
    vi.setSystemTime(t0 + DEFAULTS.warningInterval - 1);
    await refused(verifier, tokenFor(`${AUDIENCE}/`));
    expect(warnings).toHaveLength(1);
    vi.setSystemTime(t0 + DEFAULTS.warningInterval);
    await refused(verifier, tokenFor(`${AUDIENCE}/`));
    expect(warnings).toHaveLength(2);
    expect(warnings[1]!.message).toBe(warnings[0]!.message);
  });

  it('another audience is another cause, told at once', async () => {
    const { verifier, warnings } = watched(AUDIENCE);
    await refused(verifier, tokenFor(`${AUDIENCE}/`));
    await refused(verifier, tokenFor('https://billing.test/'));
    expect(warnings.map((w) => (w as AudienceMismatchError).audiences)).toEqual([
      [`${AUDIENCE}/`],
      ['https://billing.test/'],
    ]);
  });

  it.each([
    [
      'a difference in the scheme is pointed out',
      'https://api.test/orders',
      'http://api.test/orders',
      ' They differ only in the scheme (http: in the tokens, https: in the option).',
    ],
    [
      'a difference in the host (localhost is not 127.0.0.1) is pointed out',
      'http://127.0.0.1:4000/orders',
      'http://localhost:4000/orders',
      ' They differ only in the host (localhost:4000 in the tokens, 127.0.0.1:4000 in the option).',
    ],
    [
      'a difference in the port is pointed out',
      'http://localhost:4000/orders',
      'http://localhost:4001/orders',
      ' They differ only in the port (4001 in the tokens, 4000 in the option).',
    ],
    [
      'a default port is named as such',
      'https://api.test:8443/orders',
      'https://api.test/orders',
      ' They differ only in the port (the default in the tokens, 8443 in the option).',
    ],
    [
      'a difference in letter case is pointed out',
      'https://api.test/orders',
      'https://api.test/Orders',
      ' They differ only in letter case.',
    ],
    [
      'audiences nothing alike: no difference is pointed out',
      'https://api.test/orders',
      'https://billing.test/',
      '',
    ],
    ['names that are not URLs: no difference is pointed out', 'orders-api', 'billing-api', ''],
  ])('%s', async (_what, option, aud, sentence) => {
    const { verifier, warnings } = watched(option);
    await refused(verifier, tokenFor(aud));
    expect(warnings.map((w) => w.message)).toEqual([
      `${HEAD}: they name "${aud}", the "audience" option accepts "${option}".${sentence} ${ADVICE}`,
    ]);
  });

  it('several audiences on both sides: at most DEFAULTS.audienceWarnings.maxAudiences named, the near miss found among them', async () => {
    const { verifier, warnings } = watched([AUDIENCE, 'https://api.test/billing']);
    const aud = [
      'https://a.test/',
      `${AUDIENCE}/`,
      ...Array.from({ length: 6 }, (_, i) => `https://x${i}.test/`),
    ];
    await refused(verifier, tokenFor(aud));
    expect(DEFAULTS.audienceWarnings.maxAudiences).toBe(5);
    expect(warnings.map((w) => w.message)).toEqual([
      `${HEAD}: they name "https://a.test/", "${AUDIENCE}/", "https://x0.test/", "https://x1.test/", "https://x2.test/" and 3 more, the "audience" option accepts "${AUDIENCE}" or "https://api.test/billing". "${AUDIENCE}/" and "${AUDIENCE}" differ only by a trailing slash. ${ADVICE}`,
    ]);
    expect((warnings[0] as AudienceMismatchError).audiences).toHaveLength(5);
  });

  it('a token naming no audience, or an aud that is not a string nor a list of strings', async () => {
    const { verifier, warnings } = watched(AUDIENCE);
    await refused(verifier, tokenFor(undefined));
    await refused(verifier, tokenFor([]));
    await refused(verifier, tokenFor(42));
    await refused(verifier, tokenFor([AUDIENCE, 7]));
    expect(warnings.map((w) => w.message)).toEqual([
      `${HEAD}: they name no audience ("aud"), the "audience" option accepts "${AUDIENCE}". ${ADVICE_NONE}`,
      `${HEAD}: their "aud" is neither a string nor a list of strings, the "audience" option accepts "${AUDIENCE}". ${ADVICE_NONE}`,
    ]);
  });

  it('the audiences a token names are made printable, quoted and cut; the token is never named', async () => {
    const { verifier, warnings } = watched(AUDIENCE);
    const hostile = `https://api.test/"\u001b[31m\r\nFAKE LOG LINE ${'y'.repeat(300)}`;
    const token = tokenFor(hostile);
    await refused(verifier, token);
    const shown = `https://api.test/\\"?[31m??FAKE LOG LINE ${'y'.repeat(200 - 'https://api.test/"?[31m??FAKE LOG LINE '.length)}…`;
    expect(warnings.map((w) => w.message)).toEqual([
      `${HEAD}: they name "${shown}", the "audience" option accepts "${AUDIENCE}". ${ADVICE}`,
    ]);
    const all = `${warnings[0]!.message} ${JSON.stringify(warnings[0])} ${String(warnings[0])}`;
    for (const part of token.split('.')) expect(all).not.toContain(part);
    // Printable ASCII only (and the ellipsis of a cut value): no line break nor escape sequence reaches a log.
    expect([...all].filter((c) => c !== '…' && (c < ' ' || c > '~'))).toEqual([]);
  });

  it('tokens naming ever new audiences are told at most DEFAULTS.audienceWarnings.maxCauses times per interval', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = Date.now();
    const { verifier, warnings } = watched(AUDIENCE);
    for (let i = 0; i < 25; i++) await refused(verifier, tokenFor(`https://flood-${i}.test/`));
    expect(warnings).toHaveLength(DEFAULTS.audienceWarnings.maxCauses);
    vi.setSystemTime(t0 + DEFAULTS.warningInterval);
    await refused(verifier, tokenFor('https://after-the-interval.test/'));
    expect(warnings).toHaveLength(DEFAULTS.audienceWarnings.maxCauses + 1);
    expect((warnings.at(-1) as AudienceMismatchError).audiences).toEqual([
      'https://after-the-interval.test/',
    ]);
  });

  it('an issuer with its own audience: the warning names what that issuer is accepted for', async () => {
    const { verifier, warnings } = watched(AUDIENCE, {
      issuer: [
        { issuer: ISSUER, audience: 'partner-orders', jwksUri: server.jwksUri },
        { issuer: 'https://other.test/', jwksUri: server.jwksUri },
      ],
    });
    await refused(verifier, tokenFor(AUDIENCE));
    expect(warnings.map((w) => w.message)).toEqual([
      `${HEAD}: they name "${AUDIENCE}", the "audience" option accepts "partner-orders". ${ADVICE}`,
    ]);
  });

  it('an introspected token refused for its audience is told too', async () => {
    const as = await startIntrospectionServer();
    try {
      const now = Math.floor(Date.now() / 1000);
      as.answer({
        active: true,
        iss: as.issuer,
        sub: 'user-42',
        aud: `${AUDIENCE}/`,
        iat: now,
        exp: now + 600,
      });
      const warnings: KeySetError[] = [];
      const verifier = createVerifier({
        issuer: as.issuer,
        audience: AUDIENCE,
        introspection: { clientId: 'orders-api', clientSecret: 'orders-api-secret-0123456789' },
        onWarning: (w) => warnings.push(w),
      });
      await refused(verifier, 'opaque-Vk2sF9xQe1-token_value');
      expect(warnings.map((w) => w.message)).toEqual([
        `tokens of issuer "${as.issuer}" are refused for their audience (401 invalid_token): they name "${AUDIENCE}/", the "audience" option accepts "${AUDIENCE}". They differ only by a trailing slash. ${ADVICE}`,
      ]);
    } finally {
      await as.close();
    }
  });

  it('the default onWarning writes one console line; false tells nothing; a throwing logger changes no answer', async () => {
    const lines: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => {
      lines.push(args.join(' '));
    };
    try {
      const base = { issuer: ISSUER, audience: AUDIENCE, jwksUri: server.jwksUri };
      await refused(createVerifier(base), tokenFor(`${AUDIENCE}/`));
      await refused(createVerifier({ ...base, onWarning: false }), tokenFor(`${AUDIENCE}/`));
      const throwing = createVerifier({
        ...base,
        onWarning: () => {
          throw new Error('logger down');
        },
      });
      await refused(throwing, tokenFor(`${AUDIENCE}/`));
    } finally {
      console.warn = original;
    }
    expect(lines).toEqual([
      `gatehouse: ${HEAD}: they name "${AUDIENCE}/", the "audience" option accepts "${AUDIENCE}". They differ only by a trailing slash. ${ADVICE}`,
    ]);
  });
});
