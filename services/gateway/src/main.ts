import 'reflect-metadata';
import { availableParallelism } from 'node:os';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { boundLibvips } from '@thumbforge/imaging';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { configureGatewayHttp } from './http/configure.js';
import { GatewayModule } from './gateway.module.js';

await startTelemetry('gateway');
boundLibvips(availableParallelism());

// Images are served from the public bucket through CDN_URL in a cluster, not by the gateway.
startOrExit('gateway', () =>
  runServiceProcess({
    name: 'gateway',
    modules: [GatewayModule.register({ serveCdn: false })],
    configure: configureGatewayHttp,
    openInfrastructure: clusterInfrastructure('gateway'),
  }),
);
