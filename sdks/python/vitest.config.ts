import { projectTestConfig } from '../../vitest.shared.js';

// Builds a wheel, may create the virtualenv (first run) and starts the built embedded service.
export default projectTestConfig({ fileParallelism: false, testTimeout: 300_000, hookTimeout: 300_000 });
