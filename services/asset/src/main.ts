import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { AssetModule } from './asset.module.js';

startOrExit('asset', () =>
  runServiceProcess({
    name: 'asset',
    modules: [AssetModule],
    openInfrastructure: clusterInfrastructure('asset'),
  }),
);
