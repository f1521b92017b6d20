import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { FileEventLog } from '@thumbforge/event-log';
import { ACCOUNT, assetService, jobAssetsRequest, jobAssetsRequested } from './harness.js';

/** The asset service on the embedded durable log, across a restart. */
describe('asset on the file event log', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function open(dir: string) {
    const log = new FileEventLog({ dir, fsync: 'never', retryDelayMs: () => 1 });
    await log.open();
    const service = assetService(log);
    await service.consumer.onApplicationBootstrap();
    const stop = async () => {
      await service.consumer.beforeApplicationShutdown();
      await log.close();
    };
    return { log, service, stop };
  }

  async function answer(log: FileEventLog, jobId: string): Promise<StoredEvent> {
    for (;;) {
      for await (const event of log.read(TOPICS.assets)) {
        if (event.correlationId === jobId && !event.type.endsWith('-requested')) return event;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('saved assets survive a restart, and handled commands are not handled again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'asset-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));

    const first = await open(dir);
    const before = jobAssetsRequest({ usePhoto: true, useLogo: true });
    await first.log.append(TOPICS.assets, [
      makeEvent('asset.photo-save-requested', ACCOUNT, { accountId: ACCOUNT, key: 'assets/p' }),
      makeEvent('asset.logo-save-requested', ACCOUNT, {
        accountId: ACCOUNT,
        key: 'assets/l',
        position: 'top-left',
        size: 0.25,
        dropShadow: true,
      }),
      jobAssetsRequested(before),
    ]);
    expect((await answer(first.log, before.jobId)).type).toBe('asset.job-assets-resolved');
    const sizeBefore = await first.log.size(TOPICS.assets);
    await first.stop();

    const second = await open(dir);
    cleanup.push(second.stop);
    const after = jobAssetsRequest({ usePhoto: true, useLogo: true });
    await second.log.append(TOPICS.assets, [jobAssetsRequested(after)]);
    const resolved = await answer(second.log, after.jobId);
    expect(resolved.payload).toMatchObject({
      photoKey: 'assets/p',
      logo: { key: 'assets/l', position: 'top-left', size: 0.25, dropShadow: true },
    });
    // only the new owner's marker, the new command and its answer were added
    expect(await second.log.size(TOPICS.assets)).toBe(sizeBefore + 3);
  });
});
