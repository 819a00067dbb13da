/**
 * Certificate-bound tokens (RFC 8705) in the sender-constrained table (dpop-cases.ts), security
 * catalogue D22: the client certificate of the connection, or of the configured header, must be the
 * one the token is bound to.
 *
 * @module
 */
import { clientCertHeader } from '@gatehouse/testing';
import { bearer, invalidToken, PAIR, user } from './case-table.js';
import { type DpopRow, dpopUser, inDpop, withProof } from './dpop-table.js';
import { CLIENT_CERT_HEADER } from './sender-fixtures.js';

/** The rows of D22, in the table's order. */
export const MTLS_ROWS: readonly DpopRow[] = [
  // D22. Certificate-bound tokens
  {
    name: 'mtls: certificate-bound token with the bound client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound), certificate: t.alice }),
    expect: user(PAIR, null, 'mtls'),
  },
  {
    name: 'mtls: certificate-bound token without a client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound) }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: certificate-bound token with another client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound), certificate: t.mallory }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: Client-Cert header naming the bound certificate is ignored when not configured',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.alice) },
      certificate: t.mallory,
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'mtls: an unbound token with a client certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ path: '/me', headers: bearer(t.full), certificate: t.mallory }),
    expect: user(PAIR),
  },
  {
    name: 'mtls: a DPoP proof for the https URL (the adapters see the TLS socket)',
    catalogue: ['D22', 'D8'],
    variant: 'mtls',
    request: (t) => withProof(t, t.bound),
    expect: dpopUser(PAIR),
  },
  {
    name: 'mtls: token bound to a certificate and a DPoP key, both presented',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ ...withProof(t, t.doublyBound), certificate: t.alice }),
    expect: user(PAIR, null, 'dpop+mtls'),
  },
  {
    name: 'mtls: token bound to a certificate and a DPoP key, another certificate',
    catalogue: ['D22'],
    variant: 'mtls',
    request: (t) => ({ ...withProof(t, t.doublyBound), certificate: t.mallory }),
    expect: inDpop(invalidToken('certificate')),
  },
  {
    name: 'Client-Cert header configured: the bound certificate in it',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.alice) },
    }),
    expect: user(PAIR, null, 'mtls'),
  },
  {
    name: 'Client-Cert header configured: another certificate in it',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: clientCertHeader(t.mallory) },
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'Client-Cert header configured: not a structured-field byte sequence',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({
      path: '/me',
      headers: { ...bearer(t.certBound), [CLIENT_CERT_HEADER]: t.alice.der.toString('base64') },
    }),
    expect: invalidToken('certificate'),
  },
  {
    name: 'Client-Cert header configured: no header',
    catalogue: ['D22'],
    variant: 'mtls-header',
    request: (t) => ({ path: '/me', headers: bearer(t.certBound) }),
    expect: invalidToken('certificate'),
  },
];
