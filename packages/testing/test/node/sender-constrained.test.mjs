// Runs under node's own test runner against the BUILT package (dist/), in both of its formats: DPoP proofs
// and test certificates work from ESM and from CommonJS (where PKI.js is loaded lazily through import()).
// test/node-runner.test.ts spawns it.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import * as esm from '@gatehouse/testing';

const cjs = createRequire(import.meta.url)('@gatehouse/testing');

for (const [format, testing] of [
  ['ESM', esm],
  ['CommonJS', cjs],
]) {
  describe(`@gatehouse/testing (${format}) DPoP and mTLS under node:test`, () => {
    it('binds a token to a DPoP key and proves possession', async () => {
      const issuer = await testing.createTestIssuer();
      const key = await testing.generateDpopKey('EdDSA');
      const token = await issuer.sign({}, { dpop: key });
      const proof = testing.createDpopProof({
        key,
        method: 'GET',
        url: 'https://api.test/x?y',
        accessToken: token,
      });
      const [header, claims] = proof
        .split('.')
        .slice(0, 2)
        .map((part) => JSON.parse(Buffer.from(part, 'base64url')));
      assert.deepEqual(header, { typ: 'dpop+jwt', alg: 'EdDSA', jwk: { ...key.publicJwk } });
      assert.equal(claims.htu, 'https://api.test/x');
      assert.equal(claims.ath, createHash('sha256').update(token).digest('base64url'));
      const cnf = JSON.parse(Buffer.from(token.split('.')[1], 'base64url')).cnf;
      assert.deepEqual(cnf, { jkt: testing.thumbprint(key.publicJwk) });
    });

    it('makes a client certificate and its Client-Cert header', async () => {
      const client = await testing.generateTestCertificate({ commonName: 'node-test' });
      const x509 = new X509Certificate(client.certificate);
      assert.equal(x509.subject, 'CN=node-test');
      assert.ok(x509.checkIssued(new X509Certificate(client.ca.certificate)));
      assert.equal(client.thumbprint, createHash('sha256').update(x509.raw).digest('base64url'));
      assert.equal(testing.clientCertHeader(client), `:${x509.raw.toString('base64')}:`);
    });
  });
}
