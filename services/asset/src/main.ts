import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { AssetModule } from './asset.module.js';

await startTelemetry('asset');

startOrExit('asset', () =>
  runServiceProcess({
    name: 'asset',
    modules: [AssetModule],
    openInfrastructure: clusterInfrastructure('asset'),
  }),
);
