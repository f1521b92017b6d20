import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { WebhookDeliveryModule } from './webhook-delivery.module.js';

startOrExit('webhook-delivery', () =>
  runServiceProcess({
    name: 'webhook-delivery',
    modules: [WebhookDeliveryModule],
    openInfrastructure: clusterInfrastructure('webhook-delivery'),
  }),
);
