import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

// Nest's decorators are TypeScript's legacy ones: esbuild compiles them from tsconfig.json's
// `experimentalDecorators`. No `emitDecoratorMetadata` is needed: every injection names its token.
export default defineConfig(library());
