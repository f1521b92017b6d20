import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { BillingModule } from './billing.module.js';

startOrExit('billing', () =>
  runServiceProcess({
    name: 'billing',
    modules: [BillingModule],
    openInfrastructure: clusterInfrastructure('billing'),
  }),
);
