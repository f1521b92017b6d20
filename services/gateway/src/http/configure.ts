import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Infrastructure } from '@thumbforge/platform';
import { methodNotAllowed, mountOpenApi } from './openapi.js';
import { requestPipeline } from './request-context.js';

/** What the gateway adds in front of Nest's router: request ids, access logs, the JSON body parser, docs. */
export function configureGatewayHttp(app: NestExpressApplication, infra: Infrastructure): void {
  for (const middleware of requestPipeline(infra.logger)) app.use(middleware);
  app.use(methodNotAllowed(mountOpenApi(app)));
}
