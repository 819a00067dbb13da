import { defineProject } from 'vitest/config';
import { shared } from '../../vitest.shared.js';

export default defineProject({ ...shared, test: { ...shared.test, name: 'example-hono-api' } });
