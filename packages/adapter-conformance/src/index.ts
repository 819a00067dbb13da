/**
 * `@gatehouse/adapter-conformance` (private): one table of requests run against real Express, Fastify
 * and Koa servers. Every adapter must give the same status, `WWW-Authenticate` and JSON body.
 *
 * @example
 * ```ts
 * import { FRAMEWORKS, ROWS, send, START } from '@gatehouse/adapter-conformance';
 * const app = await START.express({ verifier });
 * const res = await send(app.url, ROWS[0]!.request(tokens));
 * ```
 *
 * @module
 */
export {
  ACR,
  type AppSetup,
  describeAuth,
  FRAMEWORKS,
  type Framework,
  listen,
  type RunningApp,
  SCOPES,
  type ServerCertificate,
  STEP_UP,
} from './app.js';
export {
  AUDIENCE,
  type CatalogueCase,
  type Expectation,
  INJECTION,
  mintTokens,
  type Row,
  SUBJECT,
  type Tokens,
  VARIANTS,
  type Variant,
} from './case-table.js';
export { ROWS } from './cases.js';
export {
  type ClientCertificate,
  type ProofContext,
  type SendContext,
  send,
  type TestRequest,
  type TestResponse,
} from './client.js';
export { DPOP_ROWS } from './dpop-cases.js';
export { type DpopRow, FORWARDED_CHAIN } from './dpop-table.js';
export { startExpress } from './express-app.js';
export { startFastify } from './fastify-app.js';
export { startKoa } from './koa-app.js';
export { startNestExpress, startNestFastify } from './nestjs-app.js';
export {
  describeOptionCases,
  type MountedOptions,
  misconfiguredIssuer,
  OPTION_CASES,
  OPTIONS_BASE,
  type OptionCase,
  type OptionsSubject,
} from './options-cases.js';
export {
  type AnyVariant,
  CLIENT_CERT_HEADER,
  DPOP_VARIANT_CONFIG,
  DPOP_VARIANTS,
  type DpopKeys,
  type DpopVariant,
  type Fixtures,
  mintSenderTokens,
  NONCE_LIFETIME,
  NONCE_SECRET,
  nonceStepsBack,
  PUBLIC_ORIGIN,
  REQUIRED_ALGS,
  type SenderTokens,
  type VariantConfig,
} from './sender-fixtures.js';
export { START } from './start.js';
export { mintStepUpTokens, STEP_UP_ROWS, type StepUpFixtures, type StepUpTokens } from './step-up-cases.js';
