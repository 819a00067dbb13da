import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

// Runtime-neutral output: Hono apps run on Node, Bun, Deno and workerd.
export default defineConfig(library({ target: 'es2022', platform: 'neutral' }));
