import { projectTestConfig } from '../../vitest.shared.js';

// The tests start the built embedded service and pack the package: give them time.
export default projectTestConfig({ fileParallelism: false, testTimeout: 120_000, hookTimeout: 120_000 });
