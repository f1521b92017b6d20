import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { BillingModule } from './billing.module.js';

await startTelemetry('billing');

startOrExit('billing', () =>
  runServiceProcess({
    name: 'billing',
    modules: [BillingModule],
    openInfrastructure: clusterInfrastructure('billing'),
  }),
);
