/**
 * Browser code for the suite's single-page apps: a file of test/pages/ bundled by esbuild into one
 * IIFE script (the SDK and its dependencies included), and an HTML page that runs it.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

/** Bundle `test/pages/<name>.ts` for Chromium; resolves to the script's text. */
export async function bundlePage(name: string): Promise<string> {
  const result = await build({
    entryPoints: [join(import.meta.dirname, '..', 'pages', `${name}.ts`)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** An HTML page that runs `/app.js`, with `config` as JSON in `<html data-config>`. */
export function pageHtml(config: unknown): string {
  const attribute = JSON.stringify(config).replaceAll('&', '&amp;').replaceAll("'", '&#39;');
  return `<!doctype html><html lang="en" data-config='${attribute}'><head><meta charset="utf-8"><title>SPA</title></head><body><script src="/app.js"></script></body></html>`;
}
