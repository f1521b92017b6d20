import 'reflect-metadata';
import { ConfigError, createLogger, loadConfig, type Config } from '@thumbforge/platform';
import { createEmbeddedApp } from './bootstrap.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`thumbforge: invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config, { component: 'main' });
  if (config.mode !== 'embedded') {
    process.stderr.write(
      'thumbforge: THUMBFORGE_MODE=cluster runs one process per service; this entry point is embedded mode only\n',
    );
    process.exit(78);
  }
  const app = await createEmbeddedApp(config);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    { port, dataDir: config.dataDir, cdnUrl: config.cdnUrl },
    `Thumbforge listening on http://localhost:${port} (docs at /docs)`,
  );
  if (!config.adminToken)
    logger.warn('ADMIN_TOKEN is not set: the admin API is disabled; only the public test key works');

  // Graceful shutdown: stop accepting, let consumers finish their in-flight event, close the log.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `thumbforge: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
