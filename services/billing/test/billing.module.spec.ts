import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { makeEvent, TOPICS } from '@thumbforge/contracts';
import { InfrastructureModule, ReadinessRegistry, type Config } from '@thumbforge/platform';
import { MemoryProjectionStore } from '@thumbforge/projection-store';
import { BillingModule } from '../src/index.js';
import { FakeClock, MemoryEventLog, silentLogger } from './fakes.js';
import { ACCOUNT } from './harness.js';

describe('BillingModule', () => {
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
        BillingModule,
      ],
    }).compile();
    await moduleRef.init();

    await log.append(TOPICS.billing, [
      makeEvent('billing.account-open-requested', ACCOUNT, {
        accountId: ACCOUNT,
        plan: 'pro',
        apiAccess: true,
      }),
    ]);
    while (!log.events(TOPICS.billing).some((e) => e.type === 'billing.period-started')) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const readiness = moduleRef.get(ReadinessRegistry).snapshot();
    await moduleRef.close();

    expect(log.events(TOPICS.billing).map((e) => e.type)).toEqual([
      'log.owner-fenced',
      'billing.account-open-requested',
      'billing.account-opened',
      'billing.period-started',
    ]);
    expect(readiness).toMatchObject({
      ready: true,
      components: { 'billing.ledger': { state: 'ready' }, 'billing.consumer': { state: 'ready' } },
    });
  });
});
