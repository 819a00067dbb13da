/**
 * The worker pool on its own: results, denial, every failure category, deadlines counted from
 * queueing, replacement of killed workers, isolation of concurrent calls, empty process.env (B24–B26).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimsRunner, createClaimsRunner } from '../../src/customize/runner.js';
import type { CustomClaimsContext } from '../../src/customize/types.js';
import { writeClaimsModules } from './fixtures.js';

const paths = writeClaimsModules();
// Generous enough that a loaded machine still crashes, runs out of memory or answers within it: only
// the hung calls may reach it.
const TIMEOUT = 2_000;
let runner: ClaimsRunner;

const options = (module: string, overrides: Partial<Parameters<typeof createClaimsRunner>[0]> = {}) => ({
  module,
  environmentVariables: { TENANT: 'acme' },
  timeout: TIMEOUT,
  memoryLimit: 32,
  maxResultBytes: 65_536,
  workers: 2,
  ...overrides,
});

const context = (mode: string): CustomClaimsContext => ({
  user: null,
  application: null,
  grant: { type: 'test', subjectTokenContext: { mode } },
});
const call = (mode: string) => runner.run({ token: { sub: 'usr_1' }, context: context(mode) });

beforeAll(async () => {
  process.env.GATEHOUSE_TEST_SECRET = 'runner-secret-value-1234';
  runner = createClaimsRunner(options(paths.module));
  expect(await runner.ready()).toBe(true);
});
afterAll(async () => {
  delete process.env.GATEHOUSE_TEST_SECRET;
  await runner.close();
});

describe('claims runner', () => {
  it('returns the result as JSON', async () => {
    const outcome = await call('ok');
    expect(outcome.kind).toBe('claims');
    expect(JSON.parse((outcome as { json: string }).json)).toMatchObject({
      tenant: 'acme',
      seen: { sub: 'usr_1' },
    });
  });

  it('B26: the worker sees an empty process.env and only environmentVariables', async () => {
    const outcome = await call('env');
    expect(JSON.parse((outcome as { json: string }).json)).toEqual({
      envKeys: [],
      secret: null,
      tenant: 'acme',
    });
  });

  it('denyAccess → denied with the message, even when the function catches it', async () => {
    expect(await call('deny')).toEqual({ kind: 'denied', message: 'ticket "T-1" is closed\n' });
    expect(await call('deny-caught')).toEqual({ kind: 'denied', message: 'blocked' });
  });

  it.each([
    ['throw', 'threw'],
    ['string', 'not_an_object'],
    ['array', 'not_an_object'],
    ['null', 'not_an_object'],
    ['undefined', 'not_an_object'],
    ['cycle', 'not_serializable'],
    ['bigint', 'not_serializable'],
    ['large', 'too_large'],
    ['exit', 'crashed'],
    ['async-crash', 'crashed'],
  ])('B25: %s → failed (%s), and the next call works', async (mode, failure) => {
    expect(await call(mode)).toEqual({ kind: 'failed', failure });
    expect((await call('empty')).kind).toBe('claims');
  });

  it('B24: an infinite loop is killed at the deadline and the worker replaced', async () => {
    const started = performance.now();
    expect(await call('hang')).toEqual({ kind: 'failed', failure: 'timeout' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 20);
    expect(elapsed).toBeLessThan(TIMEOUT + 1_000);
    expect((await call('ok')).kind).toBe('claims');
  });

  it('B24: a never-settling promise times out too', async () => {
    expect(await call('never')).toEqual({ kind: 'failed', failure: 'timeout' });
  });

  it('B24: a hang occupies only its own worker; other calls complete meanwhile', async () => {
    const hang = call('hang');
    const started = performance.now();
    const results = await Promise.all([call('slow'), call('ok'), call('empty')]);
    expect(results.map((result) => result.kind)).toEqual(['claims', 'claims', 'claims']);
    expect(performance.now() - started).toBeLessThan(TIMEOUT);
    expect(await hang).toEqual({ kind: 'failed', failure: 'timeout' });
  });

  it('the deadline counts from queueing: with every worker hung, a queued call fails by the deadline', async () => {
    const started = performance.now();
    const outcomes = await Promise.all([call('hang'), call('hang'), call('ok')]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['failed', 'failed', 'failed']);
    expect(performance.now() - started).toBeLessThan(TIMEOUT + 1_000);
    expect((await call('ok')).kind).toBe('claims');
  });

  it('B24: running out of memory fails the call, not the process', async () => {
    const outcome = await call('oom');
    expect(outcome.kind).toBe('failed');
    expect((outcome as { failure: string }).failure).toBe('out_of_memory');
    expect((await call('ok')).kind).toBe('claims');
  });

  it('a module without getCustomJwtClaims, or that does not parse, is not ready', async () => {
    for (const module of [paths.noExport, paths.syntaxError]) {
      const broken = createClaimsRunner(options(module));
      expect(await broken.ready()).toBe(false);
      expect(await broken.run({ token: {}, context: context('ok') })).toEqual({
        kind: 'failed',
        failure: 'load_failed',
      });
      await broken.close();
    }
  });

  it('close fails pending calls and refuses new ones', async () => {
    const closing = createClaimsRunner(options(paths.module, { workers: 1 }));
    const pending = closing.run({ token: {}, context: context('never') });
    const queued = closing.run({ token: {}, context: context('ok') });
    await closing.close();
    expect(await pending).toEqual({ kind: 'failed', failure: 'crashed' });
    expect(await queued).toEqual({ kind: 'failed', failure: 'crashed' });
    expect(await closing.run({ token: {}, context: context('ok') })).toEqual({
      kind: 'failed',
      failure: 'crashed',
    });
    expect(await closing.ready()).toBe(false);
  });
});
