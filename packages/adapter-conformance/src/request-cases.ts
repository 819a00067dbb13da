/**
 * Rows of the conformance table (cases.ts) on how the token is sent, catalogue cases 1–7: no
 * `Authorization` header, another scheme, the scheme's case, more than one token source, query and
 * form-body tokens only when enabled, and size limits. Every adapter must answer them identically.
 *
 * @module
 */
import { BARE, bearer, invalidRequest, invalidToken, PAIR, type Row, user } from './case-table.js';

/** The rows of catalogue cases 1–7, in the table's order. */
export const REQUEST_ROWS: readonly Row[] = [
  // 1. No Authorization header → bare 401, no fetch
  {
    name: 'no Authorization header',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'no Authorization header, keys unreachable: no fetch, so no 503',
    catalogue: [1],
    variant: 'outage',
    request: () => ({ path: '/me' }),
    expect: BARE,
  },
  {
    name: 'no Authorization header on a scoped route',
    catalogue: [1],
    variant: 'default',
    request: () => ({ path: '/scoped/all' }),
    expect: BARE,
  },

  // 2. Another scheme, or Bearer without a token → bare 401
  {
    name: 'Basic credentials',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
    expect: BARE,
  },
  {
    name: 'unknown scheme',
    catalogue: [2],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: { authorization: `Token ${t.full}` } }),
    expect: BARE,
  },
  {
    name: 'Bearer with an empty token',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Bearer' } }),
    expect: BARE,
  },
  {
    name: 'Bearer followed by spaces only',
    catalogue: [2],
    variant: 'outage',
    request: () => ({ path: '/me', headers: { authorization: 'Bearer    ' } }),
    expect: BARE,
  },

  // 3. The scheme is case-insensitive
  {
    name: 'lower-case bearer scheme',
    catalogue: [3],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: `bearer ${t.full}` } }),
    expect: user(PAIR),
  },
  {
    name: 'upper-case BEARER scheme',
    catalogue: [3],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: `BEARER ${t.full}` } }),
    expect: user(PAIR),
  },

  // 4. More than one token source → 400 invalid_request (whether or not the other source is enabled)
  {
    name: 'header and query token',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: `/me?access_token=${t.full}`, headers: bearer(t.full) }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and query token, query enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}`, headers: bearer(t.full) }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and form-body token',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: '/form', headers: bearer(t.full), form: { access_token: t.full } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'header and form-body token, body enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: '/form', headers: bearer(t.full), form: { access_token: t.full } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'two Authorization headers',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({
      path: '/me',
      headers: { authorization: [`Bearer ${t.full}`, `Bearer ${t.readOnly}`] },
    }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'two Authorization headers, the second one not Bearer',
    catalogue: [4],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: { authorization: [`Bearer ${t.full}`, 'Basic dXNlcjpwYXNz'] } }),
    expect: invalidRequest('multiple_tokens'),
  },
  {
    name: 'access_token twice in the query, query enabled',
    catalogue: [4],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}&access_token=${t.full}` }),
    expect: invalidRequest('multiple_tokens'),
  },

  // 5. Query (and body) tokens only when enabled
  {
    name: 'query token ignored by default',
    catalogue: [5],
    variant: 'default',
    request: (t) => ({ path: `/me?access_token=${t.full}` }),
    expect: BARE,
  },
  {
    name: 'query token accepted when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.full}` }),
    expect: user(PAIR),
  },
  {
    name: 'form-body token ignored by default',
    catalogue: [5],
    variant: 'default',
    request: (t) => ({ path: '/form', form: { access_token: t.full } }),
    expect: BARE,
  },
  {
    name: 'form-body token accepted when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: '/form', form: { access_token: t.full } }),
    expect: user(PAIR),
  },
  {
    name: 'bad query token refused when enabled',
    catalogue: [5],
    variant: 'sources',
    request: (t) => ({ path: `/me?access_token=${t.expired}` }),
    expect: invalidToken('expired'),
  },

  {
    name: 'query token with broken percent-encoding, query enabled',
    catalogue: [5, 6],
    variant: 'sources',
    request: () => ({ path: '/me?access_token=%E0%A4%A' }),
    expect: invalidRequest('bad_syntax'),
  },
  {
    name: 'query with broken percent-encoding and no token, query enabled',
    catalogue: [5],
    variant: 'sources',
    request: () => ({ path: '/me?q=%E0%A4%A&x=%' }),
    expect: BARE,
  },
  // 7. Size limits
  {
    name: 'token over the 8 KiB limit in a header that fits',
    catalogue: [7],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.oversized) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: '100 KB token with a 256 KiB header limit',
    catalogue: [7],
    variant: 'large',
    request: (t) => ({ path: '/me', headers: bearer(t.huge) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: 'oversized token, keys unreachable: refused before any fetch',
    catalogue: [7],
    variant: 'outage',
    request: (t) => ({ path: '/me', headers: bearer(t.oversized) }),
    expect: invalidToken('token_too_large'),
  },
  {
    name: "headers over 16 KiB get Node's 431",
    catalogue: [7],
    variant: 'default',
    request: (t) => ({ path: '/me', headers: bearer(t.overHeaderLimit) }),
    expect: { status: 431 },
  },
];
