import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { httpServerTelemetry, shutdownTelemetry } from '@thumbforge/telemetry';
import { ConfigError, loadConfig, type Config } from './config.js';
import { HealthModule } from './health/health.module.js';
import { InfrastructureModule, type Infrastructure } from './infrastructure.module.js';
import { createLogger } from './logger.js';

export interface ServiceAppOptions {
  /** Service modules to compose over the infrastructure (one in cluster mode, all five embedded). */
  modules: Array<Type | DynamicModule>;
  /** Express-level setup before Nest's router (the gateway's body parser, request ids, docs). */
  configure?(app: NestExpressApplication, infra: Infrastructure): void;
}

@Module({})
class ServiceRootModule {}

/**
 * One Nest application over the given ports: the modules, health probes and nothing else. Returned
 * initialised (consumers running) but not listening; closing it also closes the ports
 * (`InfrastructureModule`), after every consumer has finished its in-flight event.
 */
export async function createServiceApp(
  infra: Infrastructure,
  options: ServiceAppOptions,
): Promise<NestExpressApplication> {
  const root: DynamicModule = {
    module: ServiceRootModule,
    imports: [InfrastructureModule.forRoot(infra), HealthModule, ...options.modules],
  };
  const app = await NestFactory.create<NestExpressApplication>(root, {
    bodyParser: false,
    logger: false,
    abortOnError: false,
  });
  app.set('trust proxy', 'loopback');
  app.disable('x-powered-by');
  // First, so the span covers the whole request, body parsing and access log included.
  const telemetry = httpServerTelemetry();
  if (telemetry) app.use(telemetry);
  options.configure?.(app, infra);
  await app.init();
  return app;
}

export interface ServiceProcessOptions extends ServiceAppOptions {
  name: string;
  openInfrastructure(config: Config): Promise<Infrastructure>;
}

/**
 * A process's whole life: configuration (a bad setting exits 78 with one line naming it), the app,
 * a start-up log line with the port, and graceful shutdown on SIGTERM/SIGINT.
 */
export async function runServiceProcess(options: ServiceProcessOptions): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`thumbforge ${options.name}: invalid configuration: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config, { component: options.name });
  const infra = await options.openInfrastructure(config);
  const app = await createServiceApp(infra, options);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, mode: config.mode }, `thumbforge ${options.name} listening on port ${port}`);

  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => process.exit(1), 30_000);
      force.unref();
      app
        .close()
        .then(() => shutdownTelemetry())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
    });
  }
}

/** Entry points call this so a start-up failure is one readable line and a non-zero exit. */
export function startOrExit(name: string, run: () => Promise<void>): void {
  run().catch((error: unknown) => {
    process.stderr.write(
      `thumbforge ${name}: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  });
}
