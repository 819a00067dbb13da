/**
 * How the demo talks: the servers it started, each step of the flow, and, when it keeps serving, the
 * URLs and demo credentials. Pure formatting (strings in, strings out); `run.ts` writes them.
 *
 * @module
 */
import type { Step } from './flow.ts';
import { PEOPLE } from './seed.ts';
import type { LogLine, World } from './world.ts';

/** ANSI colours, or none (not a terminal, or `NO_COLOR` set). */
export function painter(enabled: boolean) {
  const paint = (code: number) => (text: string) => (enabled ? `\x1b[${code}m${text}\x1b[0m` : text);
  return { bold: paint(1), dim: paint(2), green: paint(32), red: paint(31), cyan: paint(36) };
}

/** A painter. */
export type Painter = ReturnType<typeof painter>;

/** The banner and the four servers. */
export function formatStart(world: World, p: Painter): string {
  const row = (name: string, url: string, what: string) =>
    `  ${name.padEnd(16)} ${url.padEnd(28)} ${p.dim(what)}`;
  return [
    p.bold('Gatehouse demo: a support engineer acts as a customer, and the API knows who really acted'),
    '',
    row('issuer', world.urls.oidc, `@gatehouse/issuer on SQLite in ${world.dataDir}`),
    row('orders API', world.urls.api, 'Express 5 + @gatehouse/express (examples/express-api)'),
    row('support backend', world.urls.backend, 'the integrator’s backend (examples/impersonation-backend)'),
    row('support console', world.urls.console, 'the actor’s application (examples/support-console)'),
  ].join('\n');
}

/** One step: its number and title, what was sent and received, and ✓ or ✗ with the promise. */
export function formatStep(n: number, step: Step, p: Painter): string {
  const mark = step.ok ? p.green(`✓ ${step.expected}`) : p.red(`✗ expected: ${step.expected}`);
  return [`${p.bold(`${n}. ${step.title}`)}`, ...step.lines.map((line) => `   ${line}`), `   ${mark}`].join(
    '\n',
  );
}

/** After the flow: a one-line verdict. */
export function formatSummary(ok: boolean, steps: number, p: Painter): string {
  return ok
    ? p.green(`All ${steps} steps behaved as promised.`)
    : p.red('The flow did not behave as promised (see ✗ above).');
}

/** What to do next when the demo keeps serving. */
export function formatServing(world: World, p: Painter): string {
  return [
    p.bold('The servers keep running. Try it in a browser:'),
    `  ${p.cyan(`${world.urls.console}/`)}  the support console`,
    `  sign in as ${PEOPLE.engineer.username} / ${PEOPLE.engineer.password} (support engineer), then press Impersonate`,
    `  (${PEOPLE.customer.username} / ${PEOPLE.customer.password} is the customer)`,
    '',
    `  ${p.cyan(`${world.urls.issuer}/console/`)}  the issuer's admin console: see every impersonation, manage users and apps`,
    `  sign in as ${PEOPLE.administrator.username} / ${PEOPLE.administrator.password} (console administrator)`,
    '',
    `  issuer     ${world.urls.oidc}/.well-known/openid-configuration`,
    `  Management API reference: ${world.urls.issuer}/api/openapi.json`,
    `  orders API ${world.urls.api}/orders  ·  backend ${world.urls.backend}/impersonations`,
    `  issuer log ${world.dataDir}/issuer.log`,
    ...(world.issuer.metricsAddress === undefined
      ? []
      : [`  metrics    http://127.0.0.1:${world.issuer.metricsAddress.port}/metrics  (Prometheus format)`]),
    world.issuer.tracesEndpoint === undefined
      ? "  traces     none sent: start with OTEL_EXPORTER_OTLP_ENDPOINT=<an OTLP collector, e.g. http://127.0.0.1:4318> to see the issuer's spans"
      : `  traces     sent to ${world.issuer.tracesEndpoint} (OTLP); each issuer log line carries its trace_id`,
    '',
    'Audit lines of the orders API and decisions of the backend appear below as you click. Ctrl-C stops everything.',
  ].join('\n');
}

/** A live log line (from a click in the console), without anything secret (these lines hold ids only). */
export function formatLine(source: 'api' | 'backend', line: LogLine, world: World, p: Painter): string {
  const who = (id: unknown) =>
    id === world.users.customer
      ? PEOPLE.customer.username
      : id === world.users.engineer
        ? PEOPLE.engineer.username
        : id;
  if (source === 'api') {
    return `${p.cyan('orders API audit')} ${line.method} ${line.path}: sub = ${who(line.subject)}, act.sub = ${who(line.actor)}`;
  }
  const { event, time: _time, ...rest } = line;
  return `${p.cyan('backend')} ${String(event)} ${JSON.stringify(rest)}`;
}
