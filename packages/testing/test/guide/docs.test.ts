/**
 * docs/testing.md states what the package does: its option table matches DEFAULTS, its bad-token table
 * matches the reasons core really gives, its promised "under ten lines" test is under ten lines, and the
 * behaviours it describes (fake clocks, a rotated kid during an outage) hold.
 */
import { readFileSync } from 'node:fs';
import { createVerifier } from '@gatehouse/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestIssuer, DEFAULTS, type DpopProofOptions } from '../../src/index.js';

const doc = readFileSync(new URL('../../../../docs/testing.md', import.meta.url), 'utf8');
const lines = doc.split('\n');

afterEach(() => {
  vi.useRealTimers();
});

describe('docs/testing.md', () => {
  it('states the DEFAULTS in its option table', () => {
    const row = (option: string) => lines.find((l) => l.startsWith(`| \`${option}\` |`)) ?? '';
    expect(row('issuer')).toContain(`\`"${DEFAULTS.issuer}"\``);
    expect(row('audience')).toContain(`\`"${DEFAULTS.audience}"\``);
    expect(row('alg')).toContain(`\`"${DEFAULTS.alg}"\``);
    expect(row('subject')).toContain(`\`"${DEFAULTS.subject}"\``);
    expect(row('clientId')).toContain(`\`"${DEFAULTS.clientId}"\``);
    expect(row('expiresIn')).toContain(`\`${DEFAULTS.expiresIn}\``);
    expect(row('typ')).toContain(`\`"${DEFAULTS.typ}"\``);
    expect(doc).toContain(DEFAULTS.wrongAudience);
    expect(doc).toContain(DEFAULTS.wrongIssuer);
  });

  it('states the DPoP defaults and documents every proof option and the binding sign options', () => {
    const table = lines.slice(lines.findIndex((l) => l.startsWith('| `createDpopProof` option |')));
    const row = (option: string) => table.find((l) => l.startsWith(`| \`${option}\``)) ?? '';
    expect(row('typ')).toContain(`\`"${DEFAULTS.dpopTyp}"\``);
    const options: (keyof DpopProofOptions)[] = [
      'key',
      'accessToken',
      'nonce',
      'iat',
      'jti',
      'alg',
      'header',
      'claims',
    ];
    for (const option of options) expect(row(option), option).not.toBe('');
    expect(row('key')).toContain('`method`, `url`');
    for (const option of ['dpop', 'certificate'] as const) {
      expect(
        lines.some((l) => l.startsWith(`| \`${option}\` | not bound |`)),
        option,
      ).toBe(true);
    }
    expect(doc).toContain('## 14. DPoP and mTLS');
    expect(doc).toContain('- [14. DPoP and mTLS](#14-dpop-and-mtls)');
  });

  it('gives every ready-made bad token with the reason core reports', async () => {
    const issuer = await createTestIssuer();
    const verifier = createVerifier({
      ...issuer.verifierOptions(),
      fetch: issuer.fetch,
      clockTolerance: 300,
    });
    const rows = lines
      .map((l) => /^\| `tokens\.(\w+)\(\)` \|.*\| `(\w+)` \| 401 `invalid_token` \|$/.exec(l))
      .filter((m) => m !== null);
    expect(rows.map((m) => m[1]).sort()).toEqual(Object.keys(issuer.tokens).sort());
    for (const [, name, reason] of rows) {
      const token = await issuer.tokens[name as keyof typeof issuer.tokens]();
      await expect(verifier.verify(token), name).rejects.toMatchObject({ reason, status: 401 });
    }
    const forged = await issuer.tokens.unknownKey({}, { kid: issuer.kid });
    expect(doc).toContain(
      '| `tokens.unknownKey({}, { kid: issuer.kid })` | a forged signature under the real `kid` | `signature` |',
    );
    await expect(verifier.verify(forged)).rejects.toMatchObject({ reason: 'signature' });
  });

  it('shows the 403 test in under ten lines', () => {
    const title = "it('GET /orders with a token lacking read:orders returns 403 insufficient_scope'";
    const start = lines.findIndex((l) => l.startsWith(title));
    expect(start).toBeGreaterThan(0);
    const end = lines.findIndex((l, i) => i > start && l === '});');
    expect(end - start + 1).toBeLessThan(10);
  });

  it('is right that tokens and core follow a fake Date (section 13)', async () => {
    const issuer = await createTestIssuer();
    const verifier = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch, cache: false });
    vi.useFakeTimers({ toFake: ['Date'] });
    const token = await issuer.sign({}, { expiresIn: 60 });
    await expect(verifier.verify(token)).resolves.toBeDefined();
    vi.setSystemTime(Date.now() + 61_000 + 5_000);
    await expect(verifier.verify(token)).rejects.toMatchObject({ reason: 'expired' });
  });

  it('is right that a new kid during an outage gives 503 even with cached keys (section 8)', async () => {
    const issuer = await createTestIssuer();
    const verifier = createVerifier({
      ...issuer.verifierOptions(),
      fetch: issuer.fetch,
      jwks: { cooldown: 0 },
    });
    await verifier.verify(await issuer.sign());
    issuer.outage.simulate('serverError');
    await expect(verifier.verify(await issuer.sign())).resolves.toBeDefined(); // cached keys keep working
    await issuer.rotateKeys();
    await expect(verifier.verify(await issuer.sign())).rejects.toMatchObject({
      status: 503,
      reason: 'jwks_unavailable',
    });
  });

  it('is right that malformed act and strict-mode cases fail as stated (sections 6 and 12)', async () => {
    const issuer = await createTestIssuer();
    const strict = createVerifier({ ...issuer.verifierOptions(), fetch: issuer.fetch, strict: true });
    await expect(strict.verify(await issuer.sign({ act: 'support-agent-7' }))).rejects.toMatchObject({
      reason: 'actor',
    });
    await expect(strict.verify(await issuer.sign({ sub: undefined }))).rejects.toMatchObject({
      reason: 'claim',
    });
    await expect(strict.verify(await issuer.sign({}, { typ: 'JWT' }))).rejects.toMatchObject({
      reason: 'typ',
    });
  });
});
