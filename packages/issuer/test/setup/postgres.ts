/**
 * Vitest global setup: a throwaway PostgreSQL cluster (see `cluster.ts`) for the storage matrix and
 * the multi-instance tests. Its database URL reaches the tests as `inject('postgresUrl')`; the cluster
 * is stopped and removed afterwards. Without PostgreSQL binaries the setup fails with a message saying
 * what to install: no test is skipped.
 */
import type { TestProject } from 'vitest/node';
import { startCluster } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:<port>/gatehouse_test` on the throwaway cluster. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await startCluster('gatehouse_test');
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
