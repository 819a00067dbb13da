/**
 * Everything the console's tests take from the issuer's own test helpers, in one place. Those helpers
 * are not published, so they are imported by relative path: the issuer started as users start it
 * (`dist/cli.js start`, built first when `dist/` is older than the issuer's or the console's sources),
 * its Management API, and signing in over HTTP for the tokens a test needs beside the browser. A
 * change to those helpers reaches the console's tests through this file only.
 */

export { Agent, codeOf, pkce, signIn, tokenRequest } from '../../../issuer/test/helpers/agent.js';
export {
  ACCESS_TOKEN_TYPE,
  TOKEN_EXCHANGE,
} from '../../../issuer/test/helpers/exchange.js';
export {
  ensureBuilt,
  type Instance,
  startInstance,
  stopInstance,
} from '../../../issuer/test/helpers/instances.js';
export {
  adminToken,
  api,
  clientCredentials,
  freePort,
  type TestIssuer,
} from '../../../issuer/test/helpers/issuer.js';
