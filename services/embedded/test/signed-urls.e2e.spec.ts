import { describe } from 'vitest';
import { signedUrlChecks } from './suites/signed-urls.js';
import { asTarget, startApp } from './support/app.js';

describe('signed image URLs', () =>
  signedUrlChecks(async () => {
    const app = await startApp({ RATE_LIMITS: 'free=1000,creator=1000,pro=1000,business=1000' });
    return asTarget(app);
  }));
