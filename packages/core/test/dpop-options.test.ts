/** Validation of the `dpop` and `mtls` verifier options (src/dpop-options.ts). */
import { describe, expect, it } from 'vitest';
import { resolveDpopOptions, resolveMtlsOptions } from '../src/dpop-options.js';
import { createVerifier, DEFAULTS, MemoryReplayStore } from '../src/index.js';

describe('resolveDpopOptions', () => {
  it('applies DEFAULTS.dpop', () => {
    const d = resolveDpopOptions(undefined);
    expect(d).toMatchObject({
      mode: DEFAULTS.dpop.mode,
      iatWindow: 300,
      iatLeeway: 30,
      maxProofLength: 8192,
      nonce: undefined,
      algs: 'ES256 EdDSA RS256 PS256',
    });
    expect(d.replayStore).toBeInstanceOf(MemoryReplayStore);
    expect(Object.isFrozen(DEFAULTS.dpop)).toBe(true);
  });

  it('keeps a given replay store and nonce settings', () => {
    const replayStore = { record: () => true };
    const d = resolveDpopOptions({ replayStore, nonce: { secret: 'x'.repeat(32), lifetime: 60 } });
    expect(d.replayStore).toBe(replayStore);
    expect(d.nonce?.lifetime).toBe(60);
    expect(d.nonce?.secret).toHaveLength(32);
  });

  it.each([
    [{ mode: 'on' }, '"dpop.mode" option must be "allowed", "required" or "disabled"'],
    [{ algorithms: [] }, '"dpop.algorithms" option must be a non-empty array'],
    [{ algorithms: ['HS256'] }, 'contains "HS256"'],
    [{ algorithms: ['none'] }, 'contains "none"'],
    [{ iatWindow: 0 }, '"dpop.iatWindow" option must be a number of seconds between 1 and 3600'],
    [{ iatLeeway: -1 }, '"dpop.iatLeeway"'],
    [{ maxProofLength: 10 }, '"dpop.maxProofLength"'],
    [
      { nonce: { secret: 'short' } },
      '"dpop.nonce.secret" option must be a string or Uint8Array of at least 32 bytes',
    ],
    [{ nonce: { secret: 'x'.repeat(32), lifetime: 1 } }, '"dpop.nonce.lifetime"'],
    [{ nonce: true }, '"dpop.nonce" option must be an object'],
    [{ replayStore: {} }, '"dpop.replayStore" option must have a record(id, expiresAt) method'],
    [{ iatWindw: 60 }, 'unknown option "dpop.iatWindw" (did you mean "dpop.iatWindow"?)'],
    [
      { nonce: { secrt: 'x'.repeat(32) } },
      'unknown option "dpop.nonce.secrt" (did you mean "dpop.nonce.secret"?)',
    ],
    ['required', '"dpop" option must be an object'],
  ])('refuses %j', (value, message) => {
    expect(() => resolveDpopOptions(value)).toThrow(TypeError);
    expect(() => resolveDpopOptions(value)).toThrow(message);
  });
});

describe('resolveMtlsOptions', () => {
  it('applies DEFAULTS.mtls and lower-cases the header name', () => {
    expect(resolveMtlsOptions(undefined)).toEqual({ mode: 'allowed', certificateHeader: undefined });
    expect(resolveMtlsOptions({ mode: 'required', certificateHeader: 'Client-Cert' })).toEqual({
      mode: 'required',
      certificateHeader: 'client-cert',
    });
  });

  it.each([
    [{ mode: 'disabled' }, '"mtls.mode" option must be "allowed" or "required"'],
    [{ certificateHeader: 'client cert' }, '"mtls.certificateHeader" option must be an HTTP header name'],
    [{ certificateHeadr: 'x' }, 'did you mean "mtls.certificateHeader"?'],
  ])('refuses %j', (value, message) => {
    expect(() => resolveMtlsOptions(value)).toThrow(message);
  });
});

describe('createVerifier', () => {
  it('validates dpop and mtls at construction', () => {
    const base = { issuer: 'https://id.example.com', audience: 'https://api.example.com' };
    expect(() => createVerifier({ ...base, dpop: { mode: 'strict' as never } })).toThrow('"dpop.mode"');
    expect(() => createVerifier({ ...base, mtls: { mode: 'off' as never } })).toThrow('"mtls.mode"');
    expect(createVerifier({ ...base, dpop: { mode: 'disabled' } }).options.dpop.mode).toBe('disabled');
  });
});
