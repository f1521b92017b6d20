import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { RenderingModule } from './rendering.module.js';

startOrExit('rendering', () =>
  runServiceProcess({
    name: 'rendering',
    modules: [RenderingModule],
    openInfrastructure: clusterInfrastructure('rendering'),
  }),
);
