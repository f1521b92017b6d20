import { projectTestConfig } from '../../vitest.shared.js';
import { STORM } from './vitest.config.js';

export default projectTestConfig({ include: [STORM], testTimeout: 3_600_000, hookTimeout: 600_000 });
