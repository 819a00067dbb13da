/**
 * `./dev demo`: runs the flow and prints each step readably.
 *
 * @module
 */
import { type FlowContext, runFlow, type Step } from './flow.ts';

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const statusText = (status: number) => paint(status < 300 ? 32 : status < 500 ? 33 : 31, String(status));

let n = 0;
function printStep(step: Step): void {
  n++;
  console.log(`\n${paint(1, `${n}. ${step.title}`)}`);
  console.log(`   ${step.request} → ${statusText(step.status)}`);
  if (step.challenge !== null) console.log(`   WWW-Authenticate: ${step.challenge}`);
  if (step.body !== null) console.log(`   ${JSON.stringify(step.body)}`);
  for (const line of step.audit) {
    const { subject, actor, actorChain, clientId, scopes } = line as Record<string, unknown>;
    console.log(
      `   ${paint(36, 'audit')} ${JSON.stringify({ event: line.event, subject, actor, actorChain, clientId, scopes })}`,
    );
  }
}

function printStart({ issuer, api }: FlowContext): void {
  console.log(paint(1, 'Gatehouse demo'));
  console.log(`   token issuer  ${issuer}  (OpenID discovery + JWKS on loopback, ES256)`);
  console.log(`   orders API    ${api}  (Express 5 + @gatehouse/express)`);
}

const steps = await runFlow(printStep, printStart);
const failed = steps.filter((s) => s.status >= 500);
console.log(
  `\n${steps.length} requests, ${failed.length === 0 ? 'no server errors' : `${failed.length} server errors`}. ` +
    'Every refusal above is an RFC 6750 answer from the same verifier the adapters share.',
);
process.exitCode = failed.length === 0 ? 0 : 1;
