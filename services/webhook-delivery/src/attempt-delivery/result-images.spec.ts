import type { WebhookOutcome } from '@thumbforge/contracts';
import type { LocalObjectStore } from '@thumbforge/object-store';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { TempDataDir } from '../../test/support/temp-data-dir.js';
import { ResultImages } from './result-images.js';

function completed(key: string, extra: Partial<WebhookOutcome> = {}): WebhookOutcome {
  return {
    event: 'generation.completed',
    generationId: `gen_${key}`,
    format: 'youtube',
    outputFormat: 'webp',
    width: 1280,
    height: 720,
    resultKey: `results/${key}.webp`,
    imageUrl: null,
    ...extra,
  } as WebhookOutcome;
}

describe('ResultImages', () => {
  let temp: TempDataDir;
  let objects: LocalObjectStore;
  let images: ResultImages;
  let reads: MockInstance<LocalObjectStore['get']>;

  beforeEach(async () => {
    temp = await TempDataDir.open();
    objects = temp.objects();
    reads = vi.spyOn(objects, 'get');
    images = new ResultImages(objects);
  });

  afterEach(() => temp.dispose());

  const put = (key: string, body: string) =>
    objects.put('private', `results/${key}.webp`, Buffer.from(body), 'image/webp');

  it('hands the next read of a job the image read when it was prefetched', async () => {
    await put('job_1', 'first');
    images.prefetch('job_1', completed('job_1'));
    await vi.waitFor(() => expect(reads).toHaveBeenCalledTimes(1));
    // Taken from the early read: the object as it was then, without a second read.
    await put('job_1', 'later');
    expect((await images.read('job_1', completed('job_1')))?.toString()).toBe('first');
    expect(reads).toHaveBeenCalledTimes(1);
    // Taken once: the next attempt reads again.
    expect((await images.read('job_1', completed('job_1')))?.toString()).toBe('later');
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('reads at once without a prefetch, and answers null for a result that is gone', async () => {
    await put('job_1', 'img');
    expect((await images.read('job_1', completed('job_1')))?.toString()).toBe('img');
    expect(await images.read('job_2', completed('job_2'))).toBeNull();
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('reads nothing for a failed generation or an image carried inline', async () => {
    const inline = completed('job_2', { inlineImage: Buffer.from('inline').toString('base64') });
    images.prefetch('job_1', { event: 'generation.failed', error: 'boom' });
    images.prefetch('job_2', inline);
    expect(await images.read('job_1', { event: 'generation.failed', error: 'boom' })).toBeUndefined();
    expect((await images.read('job_2', inline))?.toString()).toBe('inline');
    expect(reads).not.toHaveBeenCalled();
  });

  it('reads again when the early read failed, and a failed read nobody takes is harmless', async () => {
    await put('job_1', 'img');
    reads.mockRejectedValueOnce(new Error('storage unreachable'));
    images.prefetch('job_1', completed('job_1'));
    expect((await images.read('job_1', completed('job_1')))?.toString()).toBe('img');
    expect(reads).toHaveBeenCalledTimes(2);

    // Never taken: its rejection must not surface (vitest fails a run on an unhandled rejection).
    reads.mockRejectedValueOnce(new Error('storage unreachable'));
    images.prefetch('job_9', completed('job_9'));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it('keeps at most eight early reads, dropping the oldest', async () => {
    for (let n = 0; n < 9; n++) {
      await put(`job_${n}`, `img ${n}`);
      images.prefetch(`job_${n}`, completed(`job_${n}`));
    }
    expect(reads).toHaveBeenCalledTimes(9);
    // job_0's early read was dropped: reading it reads again; job_8's is still there.
    expect((await images.read('job_0', completed('job_0')))?.toString()).toBe('img 0');
    expect((await images.read('job_8', completed('job_8')))?.toString()).toBe('img 8');
    expect(reads).toHaveBeenCalledTimes(10);
  });
});
