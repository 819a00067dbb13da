/**
 * Migrations are written once for both dialects (`bothDialects`), and a migration that has shipped
 * never changes: the SQL each produces, per dialect, is pinned here by its SHA-256 digest (taken from
 * the text each migration had when it shipped). Add a migration's digests once it is released.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bothDialects } from '../../../src/storage/migrations/dialect.js';
import { MIGRATIONS } from '../../../src/storage/migrations/index.js';

const SHIPPED: Readonly<Record<string, { sqlite: string; postgres: string }>> = {
  '0001_init': {
    sqlite: 'b1c2433754343984464d26d43e584440e4f70f56971b72a1badebf8d10639f97',
    postgres: '15dc4c7e7b9a309fafc5e0d18fb040820a1ba1f82c2fd68f0d0403289392fb92',
  },
  '0002_impersonation': {
    sqlite: '09c45e8e35f2d4608483897c7e9c7341a0051c654387fe8ae8590e9debcc9264',
    postgres: 'c2c73ba2560ad17a0f69fec7d5bfae8bce348c08c0422e39db76874a415e4118',
  },
  '0003_multi_node': {
    sqlite: '9b5358abc8fee9f2699a47ee8ac8d87b68a5d635d5bc010917a81c7899212d6c',
    postgres: '8e51b4be04490236a76c3f1dc1c6e9595ee9f32f842cafa1a191dc7249f2a7bb',
  },
  '0004_dpop': {
    sqlite: '59d8da806ab987aa616905ed515ae41ade91e28fa093954ac9d3fde5d5304a87',
    postgres: 'ed5cb3cf13c4179f72aac2ca5543f9a5ffe4a6ba9596f7ce964d81df61313aab',
  },
};

const digest = (sql: string) => createHash('sha256').update(sql).digest('hex');

describe('migrations', () => {
  it.each(Object.keys(SHIPPED))(
    '%s produces exactly the SQL it shipped with, in both dialects',
    (version) => {
      const migration = MIGRATIONS.find((m) => m.version === version);
      expect(migration).toBeDefined();
      expect(digest(migration!.sqlite)).toBe(SHIPPED[version]!.sqlite);
      expect(digest(migration!.postgres)).toBe(SHIPPED[version]!.postgres);
    },
  );

  it('are listed oldest first, each version once', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect([...versions].sort()).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('bothDialects fills in the terms that differ and keeps one-dialect text to its dialect', () => {
    const { sqlite, postgres } = bothDialects(
      (d) => `t ${d.time} f ${d.flag} ${d.yes}/${d.no}${d.pg(' pg')}${d.sqlite(' lite')}`,
    );
    expect(sqlite).toBe('t INTEGER f INTEGER 1/0 lite');
    expect(postgres).toBe('t BIGINT f BOOLEAN TRUE/FALSE pg');
  });
});
