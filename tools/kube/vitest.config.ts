import { projectTestConfig } from '../../vitest.shared.js';

// One cluster per host (its bridge and ports are fixed): the files run one after another.
export default projectTestConfig({ fileParallelism: false, testTimeout: 300_000, hookTimeout: 60 * 60_000 });
