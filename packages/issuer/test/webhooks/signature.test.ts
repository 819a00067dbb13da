/**
 * `@gatehouse/issuer/webhooks`: `signWebhook` and `verifyWebhookSignature` (catalogue B95: a forged,
 * tampered, replayed-late or malformed delivery is refused), and the built subpath imports nothing heavy.
 */
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  signWebhook,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WebhookSignatureError,
} from '../../src/webhooks/signature.js';
import { ensureBuilt } from '../helpers/instances.js';

const secret = 'whsec_test-secret-0123456789abcdefghijklmnopqrstu';
const body = JSON.stringify({ id: 'evt_1', type: 'token_exchange.failed', reason: 'subject_token_consumed' });
const now = 1_764_165_600;

const refusal = (fn: () => unknown): WebhookSignatureError => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookSignatureError);
    return err as WebhookSignatureError;
  }
  throw new Error('expected a WebhookSignatureError');
};

describe('webhook signatures', () => {
  // dist/ is rebuilt when the sources are newer (tsup and the console's Vite build: up to a minute).
  beforeAll(() => ensureBuilt(), 120_000);

  it('signs t=<seconds>,v1=<HMAC-SHA256 of "<t>.<body>"> and verifies it back to the event', () => {
    const header = signWebhook({ secret, body, timestamp: now });
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${expected}`);
    expect(verifyWebhookSignature({ secret, body, header, now })).toEqual(JSON.parse(body));
    expect(verifyWebhookSignature({ secret, body: Buffer.from(body), header: [header], now }).id).toBe(
      'evt_1',
    );
    expect(WEBHOOK_SIGNATURE_HEADER).toBe('Gatehouse-Signature');
  });

  it('B95: a tampered body, another secret or a forged signature is refused (bad_signature)', () => {
    const header = signWebhook({ secret, body, timestamp: now });
    expect(refusal(() => verifyWebhookSignature({ secret, body: `${body} `, header, now })).reason).toBe(
      'bad_signature',
    );
    expect(refusal(() => verifyWebhookSignature({ secret: `${secret}x`, body, header, now })).reason).toBe(
      'bad_signature',
    );
    const forged = `t=${now},v1=${'0'.repeat(64)}`;
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: forged, now })).reason).toBe(
      'bad_signature',
    );
    // Moving the timestamp breaks the signature too: it is signed with the body.
    const moved = header.replace(`t=${now}`, `t=${now + 1}`);
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: moved, now })).reason).toBe(
      'bad_signature',
    );
  });

  it('B95: a delivery replayed outside the tolerance window is refused (stale_timestamp)', () => {
    const header = signWebhook({ secret, body, timestamp: now });
    expect(verifyWebhookSignature({ secret, body, header, now: now + 300 }).id).toBe('evt_1');
    expect(refusal(() => verifyWebhookSignature({ secret, body, header, now: now + 301 })).reason).toBe(
      'stale_timestamp',
    );
    expect(refusal(() => verifyWebhookSignature({ secret, body, header, now: now - 301 })).reason).toBe(
      'stale_timestamp',
    );
    expect(verifyWebhookSignature({ secret, body, header, now: now + 900, tolerance: 900 }).id).toBe('evt_1');
  });

  it('B95: a missing or malformed header is refused with its own reason', () => {
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: undefined, now })).reason).toBe(
      'missing_signature',
    );
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: '', now })).reason).toBe(
      'missing_signature',
    );
    for (const header of [
      'v1=abc',
      `t=${now}`,
      `t=soon,v1=${'a'.repeat(64)}`,
      `t=${now},v1=${'g'.repeat(64)}`,
    ])
      expect(refusal(() => verifyWebhookSignature({ secret, body, header, now })).reason).toBe(
        'malformed_signature',
      );
  });

  it('accepts any one matching v1 of several (a receiver checking during a secret change)', () => {
    const good = signWebhook({ secret, body, timestamp: now }).split(',')[1];
    const header = `t=${now},v1=${'1'.repeat(64)},${good}`;
    expect(verifyWebhookSignature({ secret, body, header, now }).id).toBe('evt_1');
  });

  it('the built @gatehouse/issuer/webhooks entry loads neither oidc-provider nor a database driver', () => {
    const dist = join(import.meta.dirname, '..', '..', 'dist');
    for (const file of ['webhooks.js', 'webhooks.cjs', 'webhooks.d.ts'])
      expect(existsSync(join(dist, file))).toBe(true);
    const seen = new Set<string>();
    const imports = (file: string): string[] => {
      if (seen.has(file)) return [];
      seen.add(file);
      const text = readFileSync(join(dist, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import)\s*["']([^"']+)["']/g)].map(([, s]) => s!);
      return specifiers.flatMap((s) => (s.startsWith('./') ? [s, ...imports(s.slice(2))] : [s]));
    };
    const all = imports('webhooks.js');
    expect(all.filter((s) => !s.startsWith('./'))).toEqual(
      expect.not.arrayContaining(['oidc-provider', 'pg', 'pino']),
    );
    expect(all.every((s) => s.startsWith('./') || s.startsWith('node:'))).toBe(true);
  });
});
