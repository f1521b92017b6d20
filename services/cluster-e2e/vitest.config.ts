import { projectTestConfig } from '../../vitest.shared.js';

// Each file starts real servers and service processes: one file at a time. The first run on a fresh
// machine also provisions the servers (minutes), hence the long hook timeout.
export default projectTestConfig({
  fileParallelism: false,
  testTimeout: 120_000,
  hookTimeout: 600_000,
});
