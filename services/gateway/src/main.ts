import 'reflect-metadata';
import { clusterInfrastructure } from '@thumbforge/cluster';
import { runServiceProcess, startOrExit } from '@thumbforge/platform';
import { startTelemetry } from '@thumbforge/telemetry';
import { configureGatewayHttp } from './http/configure.js';
import { GatewayModule } from './gateway.module.js';

startTelemetry('gateway');

// Images are served from the public bucket through CDN_URL in a cluster, not by the gateway.
startOrExit('gateway', () =>
  runServiceProcess({
    name: 'gateway',
    modules: [GatewayModule.register({ serveCdn: false })],
    configure: configureGatewayHttp,
    openInfrastructure: clusterInfrastructure('gateway'),
  }),
);
