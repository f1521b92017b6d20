import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { boundLibvips } from '@thumbforge/imaging';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { RenderingModule } from './rendering.module.js';

await startTelemetry('rendering');
boundLibvips(availableParallelism());

startOrExit('rendering', () =>
  runServiceProcess({
    name: 'rendering',
    modules: [RenderingModule],
    openInfrastructure: clusterInfrastructure('rendering'),
  }),
);
