import { defineConfig } from 'tsup';
import { library } from '../../tsup.preset.js';

export default defineConfig(library());
