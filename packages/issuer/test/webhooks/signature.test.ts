/**
 * `@gatehouse/issuer/webhooks`: `signWebhook` and `verifyWebhookSignature` (catalogue B95: a forged,
 * tampered, replayed-late or malformed delivery is refused; F19: it fails closed on an empty secret, a
 * tolerance or clock that is not a finite non-negative number, several `v1` none of which match, and a
 * signed body that is not a JSON event), and the built subpath imports nothing heavy.
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
const event = {
  id: 'evt_1',
  type: 'token_exchange.failed',
  createdAt: '2025-11-26T14:00:00.000Z',
  applicationId: 'te-web',
  userId: null,
  actorId: null,
  reason: 'subject_token_consumed',
  details: {},
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
};
const body = JSON.stringify(event);
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

  it('a body without traceId (queued by an issuer older than the field) verifies as untraced', () => {
    const { traceId, ...older } = event;
    expect(traceId).not.toBeNull();
    const olderBody = JSON.stringify(older);
    const header = signWebhook({ secret, body: olderBody, timestamp: now });
    expect(verifyWebhookSignature({ secret, body: olderBody, header, now })).toEqual({
      ...older,
      traceId: null,
    });
    const untraced = JSON.stringify({ ...event, traceId: null });
    const signed = signWebhook({ secret, body: untraced, timestamp: now });
    expect(verifyWebhookSignature({ secret, body: untraced, header: signed, now }).traceId).toBeNull();
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
    // Signed with two secrets (a rotation's overlap): a receiver holding either one accepts it.
    const both = signWebhook({ secret: ['whsec_new', secret], body, timestamp: now });
    expect(both.split(',')).toHaveLength(3);
    expect(verifyWebhookSignature({ secret, body, header: both, now }).id).toBe('evt_1');
    expect(verifyWebhookSignature({ secret: 'whsec_new', body, header: both, now }).id).toBe('evt_1');
  });

  it('F19: an empty or missing secret is refused (invalid_secret), before the delivery is looked at', () => {
    // An HMAC under the empty key is one anyone can compute.
    const forged = signWebhook({ secret: 'x', body, timestamp: now }).replace(
      /v1=.*/,
      `v1=${createHmac('sha256', '').update(`${now}.${body}`).digest('hex')}`,
    );
    for (const bad of ['', undefined, null, 42])
      expect(
        refusal(() => verifyWebhookSignature({ secret: bad as never, body, header: forged, now })).reason,
      ).toBe('invalid_secret');
    expect(refusal(() => verifyWebhookSignature({ secret: '', body, header: undefined, now })).reason).toBe(
      'invalid_secret',
    );
    // Nor does the issuer sign with an empty secret.
    expect(refusal(() => signWebhook({ secret: '', body })).reason).toBe('invalid_secret');
    expect(refusal(() => signWebhook({ secret: [], body })).reason).toBe('invalid_secret');
  });

  it('F19: a tolerance or clock that is not a finite, non-negative number is refused, never a check turned off', () => {
    // Signed an hour ago: NaN or Infinity would have let it through (|now - t| > NaN is false).
    const old = signWebhook({ secret, body, timestamp: now - 3_600 });
    for (const tolerance of [Number.NaN, Number.POSITIVE_INFINITY, -1, Number.NEGATIVE_INFINITY, '300'])
      expect(
        refusal(() =>
          verifyWebhookSignature({ secret, body, header: old, now, tolerance: tolerance as never }),
        ).reason,
      ).toBe('invalid_tolerance');
    for (const clock of [Number.NaN, Number.POSITIVE_INFINITY, -1])
      expect(refusal(() => verifyWebhookSignature({ secret, body, header: old, now: clock })).reason).toBe(
        'invalid_clock',
      );
    // Zero is a valid (strict) tolerance.
    const fresh = signWebhook({ secret, body, timestamp: now });
    expect(verifyWebhookSignature({ secret, body, header: fresh, now, tolerance: 0 }).id).toBe('evt_1');
    expect(
      refusal(() => verifyWebhookSignature({ secret, body, header: fresh, now: now + 1, tolerance: 0 }))
        .reason,
    ).toBe('stale_timestamp');
  });

  it('F19: a header with several v1 values none of which match is refused (bad_signature)', () => {
    const other = signWebhook({ secret: ['whsec_a', 'whsec_b', 'whsec_c'], body, timestamp: now });
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: other, now })).reason).toBe(
      'bad_signature',
    );
    const many = `t=${now},${Array.from({ length: 20 }, (_, i) => `v1=${i.toString(16).padStart(64, '0')}`).join(',')}`;
    expect(refusal(() => verifyWebhookSignature({ secret, body, header: many, now })).reason).toBe(
      'bad_signature',
    );
  });

  it('F19: a correctly signed body that is not a JSON event is refused (invalid_event)', () => {
    for (const bad of [
      'not json',
      '[]',
      'null',
      '"evt_1"',
      JSON.stringify({ id: 'evt_1' }),
      JSON.stringify({ ...event, id: 1 }),
      JSON.stringify({ ...event, details: null }),
      JSON.stringify({ ...event, details: [] }),
      JSON.stringify({ ...event, userId: 7 }),
      JSON.stringify({ ...event, createdAt: undefined }),
      JSON.stringify({ ...event, traceId: 42 }),
      JSON.stringify({ ...event, traceId: {} }),
    ]) {
      const header = signWebhook({ secret, body: bad, timestamp: now });
      expect(refusal(() => verifyWebhookSignature({ secret, body: bad, header, now })).reason, bad).toBe(
        'invalid_event',
      );
    }
    const invalidUtf8 = Buffer.from([0x7b, 0xff, 0x7d]);
    const header = signWebhook({ secret, body: invalidUtf8, timestamp: now });
    expect(refusal(() => verifyWebhookSignature({ secret, body: invalidUtf8, header, now })).reason).toBe(
      'invalid_event',
    );
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
