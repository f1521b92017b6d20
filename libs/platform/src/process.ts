import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { httpServerTelemetry, shutdownTelemetry } from '@thumbforge/telemetry';
import { ERROR_CODES } from '@thumbforge/contracts';
import { ConfigError, loadConfig, longestRequestMs, type Config } from './config.js';
import { HealthModule } from './health/health.module.js';
import { InfrastructureModule, type Infrastructure } from './infrastructure.module.js';
import { createLogger } from './logger.js';
import { startMallocTrim } from './memory/malloc-trim.js';
import { ReadinessRegistry } from './readiness.js';

/** Once draining, only health probes are answered; the body is the API's error shape. */
function refuseWhileDraining(readiness: ReadinessRegistry) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (!readiness.draining || (req.url ?? '').startsWith('/health/')) return next();
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      connection: 'close',
      'retry-after': '5',
    });
    res.end(
      JSON.stringify({
        error: 'The service is shutting down; retry on another instance',
        code: ERROR_CODES.SHUTTING_DOWN,
      }),
    );
  };
}

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
  app.set('trust proxy', infra.config.trustedProxies);
  app.disable('x-powered-by');
  // First, so the span covers the whole request, body parsing and access log included.
  const telemetry = httpServerTelemetry();
  if (telemetry) app.use(telemetry);
  app.use(refuseWhileDraining(app.get(ReadinessRegistry)));
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
  let app: NestExpressApplication;
  try {
    config = loadConfig();
    const infra = await options.openInfrastructure(config);
    app = await createServiceApp(infra, options);
    await listen(app, config);
  } catch (error) {
    if (error instanceof ConfigError) exitMisconfigured(options.name, error);
    throw error;
  }
  const logger = createLogger(config, { component: options.name });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, mode: config.mode }, `thumbforge ${options.name} listening on port ${port}`);
  startMallocTrim(config.mallocTrimIntervalMs, logger);

  const readiness = app.get(ReadinessRegistry);
  // Covers the drain delay, the longest request the settings allow, and closing the ports.
  const graceMs = config.shutdownDelayMs + longestRequestMs(config) + 10_000;
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      readiness.beginDrain();
      logger.info({ signal, delayMs: config.shutdownDelayMs, graceMs }, 'draining before shutdown');
      const force = setTimeout(() => {
        logger.error({ graceMs }, 'in-flight requests did not finish within the grace period');
        process.exit(1);
      }, graceMs);
      force.unref();
      // Load balancers see readiness fail during the delay; then the server stops accepting and
      // close() waits for the requests still in flight.
      delay(config.shutdownDelayMs)
        .then(() => closeHttpServer(app.getHttpServer()))
        // Consumers stop only now: the requests that were in flight have had their replies.
        .then(() => app.close())
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

/** Stops accepting, drops idle keep-alive connections, and resolves once every request has ended. */
function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Listening failures an operator causes, as the setting to change. */
async function listen(app: NestExpressApplication, config: Config): Promise<void> {
  try {
    await app.listen(config.port, config.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const at = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE') throw new ConfigError('PORT', `${at} is already in use`);
    if (code === 'EACCES') throw new ConfigError('PORT', `${at} needs privileges this process lacks`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new ConfigError('HOST', `${JSON.stringify(config.host)} is not an address of this machine`);
    }
    throw error;
  }
}

/** Exit status 78 is EX_CONFIG (sysexits.h): the operator, not the program, must change something. */
function exitMisconfigured(name: string, error: ConfigError): never {
  process.stderr.write(`thumbforge ${name}: invalid configuration: ${error.message}\n`);
  process.exit(78);
}

/** Entry points call this so a start-up failure is one readable line and a non-zero exit. */
export function startOrExit(name: string, run: () => Promise<void>): void {
  run().catch((error: unknown) => {
    if (error instanceof ConfigError) exitMisconfigured(name, error);
    process.stderr.write(
      `thumbforge ${name}: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exit(1);
  });
}
