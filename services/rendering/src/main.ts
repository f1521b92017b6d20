import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { RenderingModule } from './rendering.module.js';

startTelemetry('rendering');

startOrExit('rendering', () =>
  runServiceProcess({
    name: 'rendering',
    modules: [RenderingModule],
    openInfrastructure: clusterInfrastructure('rendering'),
  }),
);
