import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

// Node's type stripping cannot run decorators, so the server is compiled: esbuild turns Nest's legacy
// decorators into plain calls (`experimentalDecorators` in tsconfig.json). Every injection names its
// token, so no decorator metadata is needed. Dependencies stay external and load from node_modules.
export default defineConfig(library({ entry: ['src/server.ts'], format: ['esm'], dts: false }));
