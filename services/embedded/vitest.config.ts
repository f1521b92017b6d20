import { projectTestConfig } from '../../vitest.shared.js';

// End-to-end suites start whole applications and child processes: one file at a time.
export default projectTestConfig({ fileParallelism: false, testTimeout: 120_000 });
