import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { makeEvent, TOPICS } from '@thumbforge/contracts';
import { InfrastructureModule, ReadinessRegistry, type Config } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { AssetModule } from '../src/index.js';
import { FakeClock, MemoryEventLog, silentLogger } from './fakes.js';
import { ACCOUNT, jobAssetsRequest, jobAssetsRequested } from './harness.js';

describe('AssetModule', () => {
  it('wires from the global ports, handles commands once bootstrapped, and shuts down cleanly', async () => {
    const log = new MemoryEventLog();
    const moduleRef = await Test.createTestingModule({
      imports: [
        InfrastructureModule.forRoot({
          config: {} as Config,
          log,
          projections: new MemoryProjectionStore(),
          objects: {} as never,
          clock: new FakeClock(new Date('2026-04-10T12:00:00.000Z')),
          logger: silentLogger,
        }),
        AssetModule,
      ],
    }).compile();
    await moduleRef.init();

    const request = jobAssetsRequest({ usePhoto: true });
    await log.append(TOPICS.assets, [
      makeEvent('asset.photo-save-requested', ACCOUNT, { accountId: ACCOUNT, key: 'assets/p' }),
      jobAssetsRequested(request),
    ]);
    while (!log.events(TOPICS.assets).some((e) => e.type === 'asset.job-assets-resolved')) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const readiness = moduleRef.get(ReadinessRegistry).snapshot();
    await moduleRef.close();

    expect(log.events(TOPICS.assets).at(-1)!.payload).toMatchObject({
      jobId: request.jobId,
      photoKey: 'assets/p',
    });
    expect(readiness).toMatchObject({
      ready: true,
      components: { 'asset.projection': { state: 'ready' }, 'asset.consumer': { state: 'ready' } },
    });
  });
});
