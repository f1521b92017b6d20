export { GatewayModule, type GatewayModuleOptions } from './gateway.module.js';
export { requestPipeline } from './http/request-context.js';
export { buildOpenApiDocument, mountOpenApi } from './http/openapi.js';
export type { RebuildProgress, RebuildReport } from './rebuild/rebuild.usecase.js';
