import { defineConfig } from 'tsup';

// Nest's decorators are TypeScript's legacy ones: esbuild compiles them from tsconfig.json's
// `experimentalDecorators`. No `emitDecoratorMetadata` is needed: every injection names its token.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node22',
  platform: 'node',
});
