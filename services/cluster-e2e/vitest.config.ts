import { configDefaults } from 'vitest/config';
import { projectTestConfig } from '../../vitest.shared.js';

// The rebalance storm (issue: fencing the one writer per account) runs on its own with `npm run
// test:storm`: it passes at 2,000 reservations, but takes 7 to 10 minutes on two shared cores.
export const STORM = 'test/rebalance-storm.e2e.spec.ts';

// Each file starts real servers and five service processes: one file at a time. The first run on a
// fresh machine also provisions the servers (minutes), hence the long hook timeout.
export default projectTestConfig({
  fileParallelism: false,
  testTimeout: 120_000,
  hookTimeout: 600_000,
  exclude: [...configDefaults.exclude, STORM],
});
