export * from './config.js';
export * from './clock.js';
export * from './api-keys.js';
export * from './logger.js';
export * from './readiness.js';
export * from './infrastructure.module.js';
export * from './health/health.module.js';
export { HealthController } from './health/health.controller.js';
export * from './process.js';
