/**
 * The issuer's sign-in levels (interactions/step-up.ts): which levels a request asks for — `acr_values`, and
 * `acr` in the `claims` parameter, voluntary or essential (F11) — and what they require.
 */
import { describe, expect, it } from 'vitest';
import { ACR_VALUES, acrRequest, requiredAcr, SUPPORTED_ACR_VALUES } from '../../src/interactions/step-up.js';

const { password, mfa } = ACR_VALUES;
const essential = (acr: Record<string, unknown>) =>
  JSON.stringify({ id_token: { acr: { essential: true, ...acr } } });

describe('acr values', () => {
  it('lists the two levels, weakest first', () => {
    expect(SUPPORTED_ACR_VALUES).toEqual([password, mfa]);
  });

  it('keeps only the levels it offers, once each, in the request order', () => {
    expect(acrRequest({ acr_values: `urn:other ${mfa} ${password} ${mfa}` })).toEqual({
      levels: [mfa, password],
      essential: false,
    });
    expect(acrRequest({})).toEqual({ levels: [], essential: false });
    expect(acrRequest({ acr_values: ['not', 'a string'] })).toEqual({ levels: [], essential: false });
  });

  it('E10: requires the second factor only when password is not acceptable', () => {
    expect(requiredAcr({ acr_values: mfa })).toBe(mfa);
    expect(requiredAcr({ acr_values: `urn:other ${mfa}` })).toBe(mfa);
    expect(requiredAcr({ acr_values: `${mfa} ${password}` })).toBe(password);
    expect(requiredAcr({})).toBe(password);
    expect(requiredAcr({ acr_values: 'urn:unknown' })).toBe(password);
  });

  it('F11: an essential acr of the claims parameter (value or values) decides the level alone', () => {
    expect(acrRequest({ claims: essential({ value: mfa }) })).toEqual({ levels: [mfa], essential: true });
    expect(requiredAcr({ claims: essential({ value: mfa }) })).toBe(mfa);
    expect(requiredAcr({ claims: essential({ values: ['urn:other', mfa] }) })).toBe(mfa);
    // acr_values cannot lower an essential request.
    expect(requiredAcr({ acr_values: password, claims: essential({ value: mfa }) })).toBe(mfa);
    expect(requiredAcr({ acr_values: mfa, claims: essential({ values: [password, mfa] }) })).toBe(password);
    // Parsed or as JSON text (an interaction's params hold the text).
    expect(acrRequest({ claims: JSON.parse(essential({ value: mfa })) }).levels).toEqual([mfa]);
  });

  it('F11: a voluntary acr of the claims parameter is a wish, like acr_values', () => {
    const voluntary = JSON.stringify({ id_token: { acr: { value: mfa } } });
    expect(acrRequest({ claims: voluntary })).toEqual({ levels: [mfa], essential: false });
    expect(requiredAcr({ acr_values: password, claims: voluntary })).toBe(password);
    // essential without a value asks only that an acr be returned (it always is).
    expect(acrRequest({ claims: JSON.stringify({ id_token: { acr: { essential: true } } }) })).toEqual({
      levels: [],
      essential: false,
    });
    expect(acrRequest({ claims: JSON.stringify({ id_token: { acr: null } }) }).levels).toEqual([]);
    expect(acrRequest({ claims: 'not json' }).levels).toEqual([]);
  });

  it('F11: an essential request naming no offered level has no level to reach', () => {
    expect(acrRequest({ acr_values: mfa, claims: essential({ value: 'urn:other' }) })).toEqual({
      levels: [],
      essential: true,
    });
  });
});
