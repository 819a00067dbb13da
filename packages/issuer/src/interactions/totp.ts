/**
 * The TOTP factor (RFC 6238) of the second sign-in level: secrets, codes, and how they are kept.
 *
 * - Codes come from `otpauth` (SHA-1, 6 digits, 30 s — what every authenticator app reads from an
 *   `otpauth://` URI), checked one step either side for clock drift; an accepted step is recorded
 *   atomically (`store.totpFactors.accept`), so a code is never accepted twice (RFC 6238 §5.2).
 * - Secrets are encrypted at rest with AES-256-GCM under a key derived (HMAC-SHA-256) from each cookie
 *   key: the newest key encrypts, every configured key may decrypt, so a rotation keeps enrolments.
 *   node:crypto's AEAD is used directly: no library adds anything to a 12-line seal/open pair.
 * - The password step is carried to the code step in a signed, expiring form field bound to the
 *   interaction (an HMAC under the CSRF key), never in the clear and never the secret itself.
 * - Attempts are counted and limited by the code step (code-step.ts). Tunables: `DEFAULTS.totp`.
 * - The enrolment page shows the `otpauth://` URI as a QR code: `qrcode` encodes it (its synchronous
 *   `create()`), and {@link enrolmentQrSvg} draws the modules as one inline SVG path — no image file,
 *   no script, no network, nothing for the page's CSP to allow.
 *
 * Neither the secret nor a code is ever logged.
 *
 * @module
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { create as createQrCode } from 'qrcode';
import { DEFAULTS } from '../config/defaults.js';

const VERSION = 'v1';

/** The AES-256-GCM key of one cookie key (domain-separated from its other uses). */
const sealKey = (cookieKey: string) =>
  createHmac('sha256', cookieKey).update('gatehouse-issuer:totp-secret').digest();

/**
 * Encrypt a TOTP secret (Base32) for the database under the newest cookie key.
 *
 * @example
 * ```ts
 * const stored = sealSecret(secret.base32, cookieKeys); // 'v1.<iv>.<ciphertext>.<tag>'
 * ```
 */
export function sealSecret(base32: string, cookieKeys: readonly string[]): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(cookieKeys[0]!), iv);
  const body = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
  return [VERSION, iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * Decrypt a stored TOTP secret with whichever cookie key sealed it; `undefined` when none can (the key
 * was removed from `cookieKeys`, or the value was tampered with).
 *
 * @example
 * ```ts
 * const base32 = openSecret(factor.secret, cookieKeys);
 * ```
 */
export function openSecret(sealed: string, cookieKeys: readonly string[]): string | undefined {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || iv === undefined || body === undefined || tag === undefined) return undefined;
  for (const cookieKey of cookieKeys) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', sealKey(cookieKey), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      // Sealed under another key: try the next one.
    }
  }
  return undefined;
}

/**
 * A new random secret, in Base32.
 *
 * @example
 * ```ts
 * const base32 = newSecret(); // 32 Base32 characters
 * ```
 */
export function newSecret(): string {
  return new Secret({ size: DEFAULTS.totp.secretBytes }).base32;
}

const totpOf = (base32: string, label = 'user', issuer = '') =>
  new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(base32),
    algorithm: DEFAULTS.totp.algorithm,
    digits: DEFAULTS.totp.digits,
    period: DEFAULTS.totp.period,
  });

/**
 * The `otpauth://totp/…` URI an authenticator app reads (what a QR code would hold).
 *
 * @example
 * ```ts
 * enrolmentUri(base32, 'alice', 'https://id.example.com'); // 'otpauth://totp/…?secret=…'
 * ```
 */
export function enrolmentUri(base32: string, account: string, issuer: string): string {
  return totpOf(base32, account, issuer).toString();
}

/** Light modules around the symbol that readers need (ISO/IEC 18004 asks for four). */
const QUIET_ZONE = 4;

/**
 * The enrolment URI as a QR code an authenticator app scans: an inline `<svg>` (dark modules as one
 * path on a white square, error correction M), labelled for screen readers.
 *
 * @example
 * ```ts
 * const svg = enrolmentQrSvg(enrolmentUri(base32, 'alice', 'id.example.com')); // '<svg …>…</svg>'
 * ```
 */
export function enrolmentQrSvg(uri: string): string {
  const { modules } = createQrCode(uri, { errorCorrectionLevel: 'M' });
  const { size } = modules;
  let path = '';
  for (let row = 0; row < size; row++)
    for (let column = 0; column < size; column++)
      if (modules.get(row, column)) path += `M${column + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
  const side = size + 2 * QUIET_ZONE;
  return `<svg xmlns="http://www.w3.org/2000/svg" id="totp-qr" role="img" aria-label="QR code of the enrolment link" viewBox="0 0 ${side} ${side}" width="200" height="200" shape-rendering="crispEdges"><rect width="${side}" height="${side}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}

/**
 * The time step a code is valid for (within `DEFAULTS.totp.window` of `nowMs`), or `undefined`
 * for a wrong or malformed code.
 *
 * @example
 * ```ts
 * const step = codeStep(base32, '123456', Date.now());
 * if (step !== undefined && (await store.totpFactors.accept(userId, step, now))) signIn();
 * ```
 */
export function codeStep(base32: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(base32).validate({ token: code, timestamp: nowMs, window: DEFAULTS.totp.window });
  if (delta === null) return undefined;
  return TOTP.counter({ period: DEFAULTS.totp.period, timestamp: nowMs }) + delta;
}

/**
 * Sign "the password step of interaction `uid` succeeded for `accountId`, until `expires`" for the
 * code page's hidden field.
 *
 * @example
 * ```ts
 * const step = signPasswordStep(csrfKey, uid, user.id, now + DEFAULTS.totp.stepLifetime);
 * ```
 */
export function signPasswordStep(key: Buffer, uid: string, accountId: string, expires: number): string {
  const payload = `${accountId}.${expires}`;
  const mac = createHmac('sha256', key).update(`totp-step:${uid}:${payload}`).digest('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${mac}`;
}

/**
 * The account of a valid, unexpired {@link signPasswordStep} value for interaction `uid`, else `undefined`.
 *
 * @example
 * ```ts
 * const accountId = readPasswordStep(csrfKey, uid, form.get('step'), now);
 * ```
 */
export function readPasswordStep(
  key: Buffer,
  uid: string,
  value: string | undefined,
  now: number,
): string | undefined {
  const [encoded, mac] = (value ?? '').split('.');
  if (encoded === undefined || mac === undefined) return undefined;
  const payload = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = createHmac('sha256', key).update(`totp-step:${uid}:${payload}`).digest();
  const actual = Buffer.from(mac, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  const dot = payload.lastIndexOf('.');
  const expires = Number(payload.slice(dot + 1));
  if (dot <= 0 || !Number.isFinite(expires) || expires < now) return undefined;
  return payload.slice(0, dot);
}
