import { defineConfig } from 'tsup';

// Node's type stripping cannot run decorators, so the server is compiled: esbuild turns Nest's legacy
// decorators into plain calls (`experimentalDecorators` in tsconfig.json). Every injection names its
// token, so no decorator metadata is needed. Dependencies stay external and load from node_modules.
export default defineConfig({
  entry: ['src/server.ts'],
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
});
