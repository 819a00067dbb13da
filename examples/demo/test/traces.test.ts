/**
 * The demo with an OTLP collector: started with `OTEL_EXPORTER_OTLP_ENDPOINT` (here a loopback server
 * recording what is POSTed to `/v1/traces`), it prints where its spans go, the flow's spans reach the
 * collector, and the issuer's log lines carry the trace ids of those spans. (Without the variable the
 * demo says how to turn it on: flow.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type FlowResult, runFlow } from '../src/flow.ts';
import { formatServing, painter } from '../src/print.ts';
import type { World } from '../src/world.ts';
import { startTestWorld } from './helpers.ts';

let collector: Server;
const posted: string[] = [];
let url: string;
let world: World | undefined;
let result: FlowResult;
let printed: string;
let issuerLog: string;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') posted.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', url);
  vi.stubEnv('OTEL_METRICS_EXPORTER', 'none'); // the spans are what this file looks at
  world = await startTestWorld();
  result = await runFlow(world, () => undefined);
  printed = formatServing(world, painter(false));
  issuerLog = readFileSync(join(world.dataDir, 'issuer.log'), 'utf8');
  await world.close(); // the issuer exports the spans left on close
  world = undefined;
});

afterAll(async () => {
  await world?.close();
  vi.unstubAllEnvs();
  collector.closeAllConnections();
  await new Promise((resolve) => collector.close(resolve));
});

it('prints where the traces go, and the flow is there: its token requests and their trace ids in the issuer log', () => {
  expect(result.ok).toBe(true);
  expect(printed).toContain(`traces     sent to ${url}/v1/traces (OTLP)`);
  const spans = posted.join('\n');
  expect(spans).toContain('POST /oidc/token');
  expect(spans).toContain('"gatehouse.oauth.grant_type"');
  // Every traced request line of the issuer log names a trace the collector received.
  const traced = issuerLog
    .split('\n')
    .filter((line) => line.includes('"event":"http"') && line.includes('"path":"/oidc/token"'))
    .map((line) => (JSON.parse(line) as { trace_id?: string }).trace_id);
  expect(traced.length).toBeGreaterThan(2);
  for (const traceId of traced) {
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans).toContain(traceId);
  }
});
