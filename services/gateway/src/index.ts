export { GatewayModule, type GatewayModuleOptions } from './gateway.module.js';
export { configureGatewayHttp } from './http/configure.js';
export { buildOpenApiDocument, mountOpenApi } from './http/openapi.js';
export type { RebuildProgress, RebuildReport } from './rebuild/rebuild.usecase.js';
export { GatewayReadModel } from './read-model/gateway-read-model.js';
export { RebuildUseCase } from './rebuild/rebuild.usecase.js';
