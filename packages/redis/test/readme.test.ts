/**
 * The README's standalone example runs as written against a throwaway redis-server (REDIS_URL), and
 * prints what its comments say; the verifier example uses the option names core documents.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedisServer } from './helpers/redis-server.js';

const readme = readFileSync(join(import.meta.dirname, '../README.md'), 'utf8');
const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, code]) => ({
  lang,
  code: code!,
}));

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.dispose();
});

describe('README', () => {
  it('the standalone example prints true, then false', async () => {
    const sample = blocks.find((block) => block.lang === 'js');
    expect(sample?.code).toContain("from '@gatehouse/redis'");
    // Written next to this file so that `redis` and `@gatehouse/redis` resolve as they do in the tests.
    const file = join(import.meta.dirname, `.readme-sample-${randomBytes(6).toString('hex')}.mjs`);
    writeFileSync(file, sample!.code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.stubEnv('REDIS_URL', server.url);
    try {
      await import(/* @vite-ignore */ file);
      expect(log.mock.calls).toEqual([[true], [false]]);
    } finally {
      log.mockRestore();
      vi.unstubAllEnvs();
      rmSync(file, { force: true });
    }
  });

  it('the verifier example passes the store as dpop.replayStore', () => {
    const example = blocks.find((block) => block.lang === 'ts');
    expect(example?.code).toContain('const store = createRedisReplayStore({ client });');
    expect(example?.code).toContain('dpop: { replayStore: store }');
  });
});
