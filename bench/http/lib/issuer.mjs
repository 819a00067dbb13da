/**
 * The benchmark's authorization server: one ES256 and one RS256 signing key, a JWKS (plus discovery)
 * served on loopback, and the tokens every configuration receives. Every server under test gets the
 * same token per algorithm, so differences come from the middleware alone.
 */
import { createPublicKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';

export const ALGORITHMS = ['ES256', 'RS256'];
export const SUBJECT = 'user-1234567890';
export const AUDIENCE = 'https://api.bench.example/orders';
/** The scope every route requires. */
export const SCOPE = 'read:orders';

const b64 = (value) => Buffer.from(value).toString('base64url');

function generate(alg) {
  const pair =
    alg === 'ES256'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `bench-${alg.toLowerCase()}`;
  const jwk = { ...createPublicKey(pair.privateKey).export({ format: 'jwk' }), kid, alg, use: 'sig' };
  return { alg, kid, privateKey: pair.privateKey, jwk };
}

function signJwt(key, payload) {
  const input = `${b64(JSON.stringify({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }))}.${b64(JSON.stringify(payload))}`;
  const signature =
    key.alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key.privateKey);
  return `${input}.${b64(signature)}`;
}

/** The same token with one bit of its signature flipped. */
function tamper(token) {
  const dot = token.lastIndexOf('.');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  signature[signature.length >> 1] ^= 0x01;
  return `${token.slice(0, dot + 1)}${b64(signature)}`;
}

/**
 * Start the JWKS server on 127.0.0.1 and mint the tokens.
 *
 * @returns {Promise<{ issuer: string, jwksUri: string, spec(fields: object): object, tokens: Record<string, { good: string, tampered: string, noScope: string }>, fetches(): number, close(): Promise<void> }>}
 */
export async function startIssuer() {
  const keys = ALGORITHMS.map(generate);
  let fetches = 0;
  let issuer = '';
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    let body;
    if (path === '/.well-known/openid-configuration') body = { issuer, jwks_uri: `${issuer}/jwks` };
    else if (path === '/jwks' || path === '/.well-known/jwks.json') {
      fetches += 1;
      body = { keys: keys.map((key) => key.jwk) };
    }
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' });
    res.end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${server.address().port}`;

  const now = Math.floor(Date.now() / 1000);
  const claims = (scope) => ({
    iss: issuer,
    sub: SUBJECT,
    aud: AUDIENCE,
    client_id: 'bench-client',
    scope,
    iat: now,
    exp: now + 24 * 3600,
    jti: randomUUID(),
  });
  const tokens = {};
  for (const key of keys) {
    const good = signJwt(key, claims(`${SCOPE} write:orders`));
    tokens[key.alg] = { good, tampered: tamper(good), noScope: signJwt(key, claims('write:orders')) };
  }

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    tokens,
    /** The server spec a benchmark app verifies against: this issuer, the audience and scope, plus `fields`. */
    spec: (fields) => ({ ...fields, issuer, audience: AUDIENCE, jwksUri: `${issuer}/jwks`, scope: SCOPE }),
    /** A token like `good`, with extra claims (e.g. `cnf` for a DPoP-bound token). */
    mint: (alg, extra) =>
      signJwt(
        keys.find((k) => k.alg === alg),
        { ...claims(`${SCOPE} write:orders`), ...extra },
      ),
    fetches: () => fetches,
    resetFetches: () => {
      fetches = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
