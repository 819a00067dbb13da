/**
 * The `claims` parameter's check (interactions/claims-parameter.ts, catalogue F11): only `acr` and
 * `auth_time` in `id_token`, well-formed; an essential `acr` naming no offered level is refused with
 * `unmet_authentication_requirements`. The same refusals over HTTP are in
 * test/interactions/essential-acr.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { acrClaimRequest, claimsParameterAssertion } from '../../src/interactions/claims-parameter.js';
import { ACR_VALUES, SUPPORTED_ACR_VALUES } from '../../src/interactions/step-up.js';

const assertClaims = claimsParameterAssertion(SUPPORTED_ACR_VALUES);
const check = (claims: unknown) => () => assertClaims({} as never, claims, {});
const ONLY =
  'the claims parameter may only request acr and auth_time in id_token; other claims follow the requested scopes';

describe('claimsParameterAssertion', () => {
  it('F11: accepts acr (value or values, essential or not) and auth_time', () => {
    for (const idToken of [
      { acr: { essential: true, value: ACR_VALUES.mfa } },
      { acr: { essential: true, values: ['urn:other', ACR_VALUES.mfa] } },
      { acr: { value: 'urn:other' } },
      { acr: null, auth_time: { essential: true } },
      { acr: { essential: true } },
      {},
    ])
      expect(check({ id_token: idToken })).not.toThrow();
  });

  it('F11: an essential acr naming no level the issuer offers → unmet_authentication_requirements', () => {
    for (const acr of [
      { essential: true, value: 'urn:other:acr:hardware-key' },
      { essential: true, values: ['urn:a', 'urn:b'] },
    ]) {
      const error = (() => {
        try {
          check({ id_token: { acr } })();
        } catch (err) {
          return err as { error?: string; status?: number; error_description?: string };
        }
      })();
      expect(error).toMatchObject({ error: 'unmet_authentication_requirements', status: 400 });
      expect(error?.error_description).toBe(
        `none of the essential acr values can be met; this issuer offers ${SUPPORTED_ACR_VALUES.join(' ')}`,
      );
    }
  });

  it('F11: refuses other claims, the userinfo member and malformed acr requests with invalid_request', () => {
    const cases: [unknown, string][] = [
      [{ userinfo: { email: null } }, ONLY],
      [{ id_token: { acr: null }, userinfo: {} }, ONLY],
      [{ id_token: { email: { essential: true } } }, ONLY],
      [{ id_token: { acr: null, sub: { value: 'usr_1' } } }, ONLY],
      [{ id_token: [] }, 'claims.id_token should be an object'],
      [{ id_token: { acr: 'urn:x' } }, 'claims.id_token.acr must be null or an object'],
      [{ id_token: { acr: { essential: 'yes' } } }, 'claims.id_token.acr.essential must be a boolean'],
      [{ id_token: { acr: { value: 1 } } }, 'claims.id_token.acr.value must be a string'],
      [{ id_token: { acr: { values: 'urn:x' } } }, 'claims.id_token.acr.values must be an array of strings'],
      [
        { id_token: { acr: { values: ['urn:x', 2] } } },
        'claims.id_token.acr.values must be an array of strings',
      ],
      [
        { id_token: { acr: { value: ACR_VALUES.mfa, values: [ACR_VALUES.mfa] } } },
        'claims.id_token.acr takes value or values, not both',
      ],
    ];
    for (const [claims, description] of cases)
      expect(check(claims), JSON.stringify(claims)).toThrow(
        expect.objectContaining({ error: 'invalid_request', error_description: description }),
      );
  });
});

describe('acrClaimRequest', () => {
  it('reads value or values and essential; undefined without an acr request', () => {
    expect(acrClaimRequest({ id_token: { acr: { essential: true, value: 'a' } } })).toEqual({
      essential: true,
      values: ['a'],
    });
    expect(acrClaimRequest('{"id_token":{"acr":{"values":["a","b"]}}}')).toEqual({
      essential: false,
      values: ['a', 'b'],
    });
    expect(acrClaimRequest('{"id_token":{"auth_time":null}}')).toBeUndefined();
    expect(acrClaimRequest('{')).toBeUndefined();
    expect(acrClaimRequest(undefined)).toBeUndefined();
  });
});
