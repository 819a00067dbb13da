#!/usr/bin/env node
/**
 * The last step of the issuer's build (after tsup): copy the admin console's build — `dist/` of the
 * private workspace package `@gatehouse/console` (packages/console, built by Vite; turbo builds it
 * before the issuer, see turbo.json) — into `dist/console/`, where src/console/assets.ts reads it. So the
 * issuer's published tarball (`files: ["dist", …]`) carries the console, though the console package is
 * never published, and the issuer runs without it installed.
 *
 * Fails when the console was not built (`pnpm build` at the root builds both): an issuer build without
 * its console would answer `/console` with a 503.
 *
 * @module
 */
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const from = fileURLToPath(new URL('../../console/dist/', import.meta.url));
const to = fileURLToPath(new URL('../dist/console/', import.meta.url));

if (!existsSync(join(from, 'index.html'))) {
  console.error(
    `copy-console: ${from} holds no index.html: build the console first (pnpm build at the repository root, or pnpm --filter @gatehouse/console build)`,
  );
  process.exit(1);
}
rmSync(to, { recursive: true, force: true });
cpSync(from, to, { recursive: true });
