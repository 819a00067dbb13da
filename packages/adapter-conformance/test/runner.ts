/**
 * The one runner of the conformance table: it deploys every variant on every target of a suite, sends
 * each row to each target that takes part in it, checks each answer against the row's expectation and
 * core's own error for it (support.ts `checkResponse`), and requires it to be identical to Express's
 * answer (status, `WWW-Authenticate`, `Retry-After`, `DPoP-Nonce`, content type, body bytes; catalogue
 * case A51). cases.test.ts (the Node frameworks), runtimes.test.ts (Request-based apps on Node) and
 * runtimes-remote.test.ts (Bun, Deno, workerd) differ only in their list of targets.
 */
import {
  createTestCertificateAuthority,
  createTestIssuer,
  generateTestCertificate,
  type TestIssuer,
} from '@gatehouse/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type AnyVariant,
  AUDIENCE,
  DPOP_VARIANTS,
  mintSenderTokens,
  mintStepUpTokens,
  mintTokens,
  type Row,
  type StepUpFixtures,
  send,
  type TestResponse,
  VARIANTS,
} from '../src/index.js';
import { caseLabel, checkResponse, comparable, type DeployEnv, type Deployment, deploy } from './support.js';

export type AnyRow = Row<AnyVariant, StepUpFixtures>;

/** Rows a target is not sent, and why (the server, not the adapter, decides them). */
export interface Exclusion {
  readonly why: string;
  /** Every row of these variants (nothing of them is deployed). */
  readonly variants?: readonly AnyVariant[];
  /** Rows of served variants. */
  readonly rows?: (row: AnyRow) => boolean;
}

/** A target's deployments, one per variant it serves. */
export interface Deployed {
  readonly deployments: ReadonlyMap<AnyVariant, Deployment>;
  close(): Promise<void>;
}

/** One target of the table: a framework or runtime serving the suite's app. */
export interface Target {
  readonly name: string;
  /** Deploy `variants` (those no exclusion removes). */
  deploy(env: DeployEnv, variants: readonly AnyVariant[]): Promise<Deployed>;
  readonly excludes?: readonly Exclusion[];
  /**
   * For a runtime that may answer an HTTP/1.0 request without `Host` itself, before the app runs: such
   * a row also accepts a dropped half-closed connection, and with `refusal` (why) any 4xx.
   */
  readonly hostless?: { readonly refusal?: string };
}

/** A list of targets and where the reference answer comes from. */
export interface Suite {
  readonly targets: readonly Target[];
  /**
   * `shared`: the target named `express` of the list answers once per row for every target. `own`:
   * each target gets an Express deployment of its own (outage rows depend on each deployment's own
   * backoff state, and a target answering in another process does not share it).
   */
  readonly reference: 'shared' | 'own';
  /**
   * Set-up the targets need, before the tokens are minted (the issuer listening on loopback, whose
   * URL becomes the tokens' `iss`) and the targets deployed.
   */
  readonly prepare?: (issuer: TestIssuer) => Promise<void>;
  /** Undo `prepare`, after every target is closed. */
  readonly cleanup?: () => Promise<void>;
}

/** What a run gives its targets and tests. */
export interface RunEnv extends DeployEnv {
  readonly fixtures: StepUpFixtures;
}

/** The deployments of a suite, filled in its `beforeAll`. */
export interface Run {
  /** The run's issuer, tokens and https certificate (set once `beforeAll` ran). */
  env(): RunEnv;
  /** A target's deployment of a variant. */
  deployment(target: string, variant: AnyVariant): Deployment;
}

const ALL_VARIANTS: readonly AnyVariant[] = [...VARIANTS, ...DPOP_VARIANTS];

const servedBy = (target: Target): AnyVariant[] =>
  ALL_VARIANTS.filter((v) => !(target.excludes ?? []).some((e) => e.variants?.includes(v)));

/** Whether `target` takes part in `row`. */
export const sentTo = (target: Target, row: AnyRow): boolean =>
  !(target.excludes ?? []).some((e) => e.variants?.includes(row.variant) || e.rows?.(row) === true);

/** The name of the deployments that answer for Express next to `target`. */
export const referenceName = (suite: Suite, target: Target): string =>
  suite.reference === 'shared' ? 'express' : `express@${target.name}`;

/** Deploy each variant of a Node framework (support.ts `deploy`), or of another starter. */
export function localTarget(
  name: string,
  framework: Parameters<typeof deploy>[1],
  options: { start?: Parameters<typeof deploy>[3]; excludes?: readonly Exclusion[] } = {},
): Target {
  return {
    name,
    ...(options.excludes === undefined ? {} : { excludes: options.excludes }),
    async deploy(env, variants) {
      const deployments = new Map<AnyVariant, Deployment>();
      for (const variant of variants)
        deployments.set(variant, await deploy(env, framework, variant, options.start));
      return { deployments, close: () => closeAll(deployments) };
    },
  };
}

async function closeAll(deployments: ReadonlyMap<AnyVariant, Deployment>): Promise<void> {
  await Promise.all([...deployments.values()].map((d) => d.app.close()));
}

/** Register the suite's `beforeAll` (issuer, tokens, deployments) and `afterAll` (close, pass or fail). */
export function useSuite(suite: Suite): Run {
  let env: RunEnv | undefined;
  const deployed = new Map<string, Deployed>();
  beforeAll(async () => {
    const issuer: TestIssuer = await createTestIssuer({ audience: AUDIENCE });
    await suite.prepare?.(issuer);
    const ca = await createTestCertificateAuthority();
    const serverCertificate = await generateTestCertificate({
      ca,
      commonName: 'localhost',
      hosts: ['127.0.0.1'],
    });
    const sender = await mintSenderTokens(issuer);
    const fixtures: StepUpFixtures = {
      ...(await mintTokens(issuer)),
      ...sender,
      ...(await mintStepUpTokens(issuer, sender.keys.main)),
    };
    env = { issuer, serverCertificate, fixtures };
    const express = localTarget('express', 'express');
    for (const target of suite.targets) {
      const variants = servedBy(target);
      deployed.set(target.name, await target.deploy(env, variants));
      if (suite.reference === 'own')
        deployed.set(referenceName(suite, target), await express.deploy(env, variants));
    }
  }, 240_000);
  afterAll(async () => {
    await Promise.all([...deployed.values()].map((d) => d.close()));
    await suite.cleanup?.();
  });
  return {
    env: () => env!,
    deployment(target, variant) {
      const d = deployed.get(target)?.deployments.get(variant);
      if (d === undefined) throw new Error(`${target} does not serve the ${variant} variant`);
      return d;
    },
  };
}

/** Send `row` to a deployment (or take the answer already `sent`), check it; what must equal Express's. */
async function answer(run: Run, name: string, d: Deployment, row: AnyRow, sent?: TestResponse) {
  const { fixtures } = run.env();
  if (sent === undefined && row.warmUp !== undefined) {
    const warm = await send(d.app.url, row.warmUp(fixtures), d.sendContext());
    expect(warm.status, `${name}: the warm-up request is accepted`).toBe(200);
  }
  const before = d.fetches();
  const nonceBefore = d.verifier.dpopNonce();
  const res = sent ?? (await send(d.app.url, row.request(fixtures), d.sendContext()));
  try {
    checkResponse(res, row.expect, {
      context: d.verifier.context,
      algs: d.algs,
      nonces: [nonceBefore, d.verifier.dpopNonce()],
    });
  } catch (err) {
    (err as Error).message = `${name}: ${(err as Error).message}`;
    throw err;
  }
  if (row.variant === 'outage' && row.expect.status !== 503)
    expect(d.fetches() - before, `${name}: answered without fetching keys (0F)`).toBe(0);
  return row.expect.status === 431 ? { status: res.status } : comparable(res);
}

/**
 * A request without `Host` to a target that may refuse it itself: `done` when the target took part as
 * its runtime may (dropped the connection, or refused with a 4xx), else its answer to check.
 */
async function hostless(run: Run, target: Target, row: AnyRow): Promise<TestResponse | 'done'> {
  const d = run.deployment(target.name, row.variant);
  const sent = await send(d.app.url, row.request(run.env().fixtures), d.sendContext()).catch(() => undefined);
  const status = sent?.status;
  if (sent === undefined || status === undefined || Number.isNaN(status)) return 'done'; // dropped the half-closed connection
  const refusal = target.hostless?.refusal;
  if (refusal !== undefined) {
    expect(status >= 400 && status < 500, `${target.name}: ${refusal}`).toBe(true);
    return 'done';
  }
  return sent;
}

/** `A4 [variant] name`, the title of a row's test. */
export const rowTitle = (row: AnyRow) => `${caseLabel(row.catalogue)} [${row.variant}] ${row.name}`;

/** One test per row: every target that takes part answers it as Express does. */
export function itAnswersEveryRow(run: Run, suite: Suite, rows: readonly AnyRow[]): void {
  const sent = rows.filter((row) => suite.targets.some((t) => sentTo(t, row)));
  it.each(sent.map((row) => [rowTitle(row), row] as const))('%s', async (_title, row) => {
    const answers = new Map<string, unknown>();
    for (const target of suite.targets) {
      if (!sentTo(target, row)) continue;
      const request = row.request(run.env().fixtures);
      let own: TestResponse | undefined;
      const withoutHost = request.http10 === true && request.headers?.host === undefined;
      if (target.hostless !== undefined && withoutHost && row.warmUp === undefined) {
        const outcome = await hostless(run, target, row);
        if (outcome === 'done') continue;
        own = outcome;
      }
      const reference = referenceName(suite, target);
      if (!answers.has(reference))
        answers.set(reference, await answer(run, 'express', run.deployment(reference, row.variant), row));
      if (target.name === reference) continue;
      const mine = await answer(run, target.name, run.deployment(target.name, row.variant), row, own);
      expect(mine, `${target.name} = Express`).toEqual(answers.get(reference));
    }
  });
}
