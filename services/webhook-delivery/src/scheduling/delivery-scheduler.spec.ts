import { createLogger } from '@thumbforge/platform';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  AttemptDeliveryCommand,
  AttemptDeliveryUseCase,
  AttemptResult,
} from '../attempt-delivery/attempt-delivery.usecase.js';
import { DeliveryScheduler } from './delivery-scheduler.js';
import type { Timers } from './timers.js';

/** Timers the test fires by hand. */
class ManualTimers implements Timers {
  readonly pending = new Map<number, { callback: () => void; ms: number }>();
  private next = 0;

  setTimeout(callback: () => void, ms: number): unknown {
    this.pending.set(++this.next, { callback, ms });
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  delays(): number[] {
    return [...this.pending.values()].map((t) => t.ms);
  }
  fireAll(): void {
    const due = [...this.pending.entries()];
    this.pending.clear();
    for (const [, timer] of due) timer.callback();
  }
}

const NOW = new Date('2026-05-01T08:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const delivery = (jobId: string, partition = 0) => ({ jobId, partition });

describe('DeliveryScheduler', () => {
  let timers: ManualTimers;
  let execute: ReturnType<typeof vi.fn<(command: AttemptDeliveryCommand) => Promise<AttemptResult>>>;
  let scheduler: DeliveryScheduler;

  beforeEach(() => {
    timers = new ManualTimers();
    execute = vi.fn();
    scheduler = new DeliveryScheduler(timers, { now: () => NOW }, createLogger({ logLevel: 'silent' }), {
      execute,
    } as unknown as AttemptDeliveryUseCase);
  });

  it('waits until the due time, and runs past due times at once', () => {
    scheduler.schedule(delivery('job_1'), 1, at(1500));
    scheduler.schedule(delivery('job_2'), 2, at(-60_000));
    expect(timers.delays()).toEqual([1500, 0]);
    expect(execute).not.toHaveBeenCalled();
  });

  it('keeps one timer per job: scheduling again replaces it', () => {
    scheduler.schedule(delivery('job_1'), 1, at(1000));
    scheduler.schedule(delivery('job_1'), 1, at(0));
    expect(timers.delays()).toEqual([0]);
  });

  it('schedules the retry the attempt asks for, after the attempt has finished', async () => {
    execute.mockResolvedValueOnce({ kind: 'retry', attempt: 2, at: at(10_000) });
    execute.mockResolvedValueOnce({ kind: 'delivered' });
    scheduler.schedule(delivery('job_1'), 1, NOW);

    timers.fireAll();
    await vi.waitFor(() => expect(timers.delays()).toEqual([10_000]));
    timers.fireAll();
    await vi.waitFor(() => expect(execute).toHaveBeenCalledTimes(2));
    expect(execute.mock.calls.map(([command]) => command)).toEqual([
      { jobId: 'job_1', partition: 0, attempt: 1 },
      { jobId: 'job_1', partition: 0, attempt: 2 },
    ]);
    await scheduler.stop();
    expect(timers.pending.size).toBe(0);
  });

  it('makes the same attempt again later when it could not be completed', async () => {
    execute.mockRejectedValueOnce(new Error('log unavailable'));
    scheduler.schedule(delivery('job_1'), 3, NOW);
    timers.fireAll();
    await vi.waitFor(() => expect(timers.delays()).toEqual([5000]));
    execute.mockResolvedValueOnce({ kind: 'delivered' });
    timers.fireAll();
    await vi.waitFor(() => expect(execute).toHaveBeenCalledTimes(2));
    expect(execute.mock.calls[1]![0]).toEqual({ jobId: 'job_1', partition: 0, attempt: 3 });
  });

  it('on stop drops pending timers and waits for the attempt in flight', async () => {
    let finish!: (result: AttemptResult) => void;
    execute.mockReturnValueOnce(new Promise((resolve) => (finish = resolve)));
    scheduler.schedule(delivery('job_1'), 1, NOW);
    timers.fireAll();
    scheduler.schedule(delivery('job_2'), 1, at(5000));
    expect(timers.pending.size).toBe(1);

    let stopped = false;
    const stopping = scheduler.stop().then(() => (stopped = true));
    expect(timers.pending.size).toBe(0);
    await Promise.resolve();
    expect(stopped).toBe(false);

    finish({ kind: 'retry', attempt: 2, at: at(10_000) });
    await stopping;
    // The retry is not scheduled once stopped: the next start finds it on the log.
    expect(timers.pending.size).toBe(0);
    scheduler.schedule(delivery('job_3'), 1, NOW);
    expect(timers.pending.size).toBe(0);
  });

  it('keeps the timers of owned partitions only, and sets none for the others', async () => {
    scheduler.schedule(delivery('job_1', 0), 1, at(1000));
    scheduler.schedule(delivery('job_2', 1), 1, at(1000));
    scheduler.restrictTo((partition) => partition === 1);
    expect(timers.pending.size).toBe(1);
    scheduler.schedule(delivery('job_3', 0), 1, NOW);
    expect(timers.pending.size).toBe(1);

    execute.mockResolvedValue({ kind: 'delivered' });
    timers.fireAll();
    await vi.waitFor(() => expect(execute).toHaveBeenCalledTimes(1));
    expect(execute.mock.calls[0]![0]).toEqual({ jobId: 'job_2', partition: 1, attempt: 1 });
  });
});
