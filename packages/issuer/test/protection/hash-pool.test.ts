/**
 * Bounded password hashing: the pool runs at most `concurrent` tasks and refuses at once past its
 * queue; and, end to end, a login flood (16 parallel guessers at the real scrypt cost, throttling
 * switched off so every attempt asks for a hash) leaves token issuance within twice its idle latency.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { createHashPool, HashPoolBusyError } from '../../src/protection/hash-pool.js';
import { loadWorld, SECRETS } from '../helpers/fixtures.js';
import { clientCredentials, startIssuer, type TestIssuer } from '../helpers/issuer.js';
import { openSignInForm } from '../helpers/sign-in.js';

describe('createHashPool()', () => {
  it('runs at most `concurrent` tasks, queues `queued` more and refuses the rest at once', async () => {
    const pool = createHashPool({ concurrent: 2, queued: 1 });
    let running = 0;
    let most = 0;
    const task = async () => {
      running += 1;
      most = Math.max(most, running);
      await sleep(30);
      running -= 1;
      return 'done';
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => pool.run(task)));
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(HashPoolBusyError);
    expect(most).toBe(2);
    // Slots are given back, failures included.
    await expect(pool.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await Promise.all([pool.run(task), pool.run(task), pool.run(task)])).toEqual([
      'done',
      'done',
      'done',
    ]);
  });
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('token issuance under a login flood (sqlite)', () => {
  let t: TestIssuer;
  beforeAll(async () => {
    // The real scrypt cost and the default throttling; one hash at a time so the bound is exercised.
    t = await startIssuer('sqlite', {
      passwords: { scryptCost: DEFAULTS.passwords.scryptCost },
      log: { level: 'warn' },
      signIn: { concurrentHashes: 1, queuedHashes: 2 },
    });
    await loadWorld(t);
  });
  afterAll(() => t.close());

  /** Median milliseconds of `count` sequential client-credentials requests. */
  async function tokenLatency(count: number): Promise<number> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await clientCredentials(t.baseUrl, 'worker', SECRETS.worker, {
        resource: 'https://orders.example.com',
      });
      times.push(performance.now() - started);
      expect(res.status).toBe(200);
    }
    return median(times);
  }

  it('B61: 16 parallel password guessers leave token issuance within 2x of idle', async () => {
    await tokenLatency(20); // warm up
    const idle = await tokenLatency(100);

    const forms = await Promise.all(Array.from({ length: 16 }, () => openSignInForm(t.baseUrl)));
    const answers: { status: number; ms: number }[] = [];
    let flooding = true;
    const guessers = forms.map(async (form, n) => {
      for (let i = 0; flooding; i++) {
        const started = performance.now();
        const { status } = await form.attempt(i % 2 === 0 ? 'alice' : `nobody${n}`, `guess ${n} ${i}`);
        answers.push({ status, ms: performance.now() - started });
      }
    });
    let flooded: number;
    try {
      // The first attempts are answered at full speed (hashed, or refused at once when the hash slot
      // is taken) until the address's delays start; from then on every attempt waits.
      await sleep(2_000);
      flooded = await tokenLatency(100);
    } finally {
      flooding = false;
      await Promise.all(guessers);
    }
    const count = (status: number) => answers.filter((answer) => answer.status === status).length;
    console.info(
      `B61: client credentials median ${idle.toFixed(1)} ms idle, ${flooded.toFixed(1)} ms under the flood; sign-in answers: ${count(401)}×401, ${count(503)}×503, ${count(429)}×429`,
    );
    // The flood was real: passwords were checked, the excess refused at once (503), then the account
    // and the address were locked (429).
    expect(count(401)).toBeGreaterThan(0);
    expect(count(503)).toBeGreaterThan(0);
    expect(count(429)).toBeGreaterThan(0);
    expect(count(401) + count(503) + count(429)).toBe(answers.length);
    expect(flooded).toBeLessThanOrEqual(2 * idle);
  });
});
