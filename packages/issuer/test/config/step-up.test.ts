/** The issuer's sign-in levels (config/step-up.ts): which `acr_values` are understood and what they require. */
import { describe, expect, it } from 'vitest';
import {
  ACR_VALUES,
  requestedAcrValues,
  requiredAcr,
  SUPPORTED_ACR_VALUES,
} from '../../src/config/step-up.js';

describe('acr values', () => {
  it('lists the two levels, weakest first', () => {
    expect(SUPPORTED_ACR_VALUES).toEqual([ACR_VALUES.password, ACR_VALUES.mfa]);
  });

  it('keeps only the levels it offers, in the request order', () => {
    expect(requestedAcrValues(`urn:other ${ACR_VALUES.mfa} ${ACR_VALUES.password}`)).toEqual([
      ACR_VALUES.mfa,
      ACR_VALUES.password,
    ]);
    expect(requestedAcrValues(undefined)).toEqual([]);
    expect(requestedAcrValues(['not', 'a string'])).toEqual([]);
  });

  it('E10: requires the second factor only when password is not acceptable', () => {
    expect(requiredAcr(ACR_VALUES.mfa)).toBe(ACR_VALUES.mfa);
    expect(requiredAcr(`urn:other ${ACR_VALUES.mfa}`)).toBe(ACR_VALUES.mfa);
    expect(requiredAcr(`${ACR_VALUES.mfa} ${ACR_VALUES.password}`)).toBe(ACR_VALUES.password);
    expect(requiredAcr(undefined)).toBe(ACR_VALUES.password);
    expect(requiredAcr('urn:unknown')).toBe(ACR_VALUES.password);
  });
});
