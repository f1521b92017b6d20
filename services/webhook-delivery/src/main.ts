import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { WebhookDeliveryModule } from './webhook-delivery.module.js';

await startTelemetry('webhook-delivery');

startOrExit('webhook-delivery', () =>
  runServiceProcess({
    name: 'webhook-delivery',
    modules: [WebhookDeliveryModule],
    openInfrastructure: clusterInfrastructure('webhook-delivery'),
  }),
);
