/**
 * Two issuer processes (`gatehouse-issuer start`, the built CLI), A and B, on one fresh PostgreSQL
 * database behind the loopback load balancer, seeded with the world of instance-world.ts: the set-up
 * of e2e/multi-instance and e2e/dpop-instances. A store opened on the same database reads what they
 * wrote. Whatever was started is stopped again when the set-up fails, and by `close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { type LoadBalancer, startLoadBalancer } from './balancer.js';
import { freshPostgresUrl } from './drivers.js';
import { type Credentials, seedWorld } from './instance-world.js';
import {
  ensureBuilt,
  type Instance,
  runCliProcess,
  startInstance,
  startTogether,
  stopInstance,
} from './instances.js';
import { freePort } from './issuer.js';

/** Options of {@link startPair}. */
export interface PairOptions {
  /** Part of the temporary directory's name. */
  readonly name: string;
  /** Settings of both instances and of the CLI commands, besides `DATABASE_URL`. */
  readonly env: Record<string, string>;
  /** The seeded applications (instance-world.ts). */
  readonly apps: { readonly web: Credentials & { readonly name?: string }; readonly worker: Credentials };
  /** Run `gatehouse-issuer migrate` at the same moment as the two starts, on the empty database. */
  readonly migrate?: boolean;
}

/** Two running instances behind the balancer. */
export interface InstancePair {
  readonly a: Instance;
  readonly b: Instance;
  /** The balancer; its `url` is the issuer's public base URL. */
  readonly lb: LoadBalancer<Instance>;
  /** A store on the instances' database. */
  readonly store: Store;
  /** The seeded user alice's id. */
  readonly aliceId: string;
  /** What `migrate` printed (its JSON report), when it was run. */
  readonly migrated: string | undefined;
  /** Stop the balancer and the instances, close the store, remove the directory. */
  close(): Promise<void>;
}

/**
 * Start A and B together on an empty database (with a `migrate` process when asked), seed the world
 * with `seed` (a process of its own too, as an operator would run it), then put the balancer in front.
 *
 * @example
 * ```ts
 * const pair = await startPair({ name: 'multi', env: { GATEHOUSE_ADMIN_CLIENT_ID: 'admin', … }, apps: { web, worker } });
 * await pair.close();
 * ```
 */
export async function startPair(options: PairOptions): Promise<InstancePair> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), `gatehouse-${options.name}-`));
  let instances: Instance[] = [];
  let lb: LoadBalancer<Instance> | undefined;
  let store: Store | undefined;
  const close = async () => {
    await lb?.close();
    await Promise.all(instances.map((instance) => stopInstance(instance)));
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const database = await freshPostgresUrl();
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const env = { DATABASE_URL: database, ...options.env };
    const [migrated, started] = await Promise.allSettled([
      options.migrate === true ? runCliProcess(['migrate'], env) : Promise.resolve(undefined),
      startTogether([startInstance('A', baseUrl, env), startInstance('B', baseUrl, env)]),
    ]);
    if (started.status === 'fulfilled') instances = started.value;
    for (const outcome of [migrated, started]) if (outcome.status === 'rejected') throw outcome.reason;
    const [a, b] = instances as [Instance, Instance];
    await seedWorld(dir, baseUrl, env, options.apps);
    lb = await startLoadBalancer(port, [a, b]);
    store = openStore(database);
    const aliceId = (await store.users.findByLogin('alice'))!.id;
    return {
      a,
      b,
      lb,
      store,
      aliceId,
      migrated: (migrated as PromiseFulfilledResult<string | undefined>).value,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
