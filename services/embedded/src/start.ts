import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { boundLibvips } from '@thumbforge/imaging';
import { ConfigError, runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { EMBEDDED_APP, openEmbeddedInfrastructure } from './bootstrap.js';

await startTelemetry('embedded');
boundLibvips(availableParallelism());

startOrExit('embedded', () =>
  runServiceProcess({
    name: 'embedded',
    ...EMBEDDED_APP,
    openInfrastructure: async (config) => {
      if (config.mode !== 'embedded') {
        throw new ConfigError(
          'THUMBFORGE_MODE',
          'cluster runs one process per service (node services/<service>/dist/main.js), not this one',
        );
      }
      const infra = await openEmbeddedInfrastructure(config);
      if (!config.adminToken)
        infra.logger.warn(
          'ADMIN_TOKEN is not set: the admin API is disabled; only the public test key works',
        );
      infra.logger.info({ dataDir: config.dataDir, cdnUrl: config.cdnUrl, docs: '/docs' }, 'embedded mode');
      return infra;
    },
  }),
);
