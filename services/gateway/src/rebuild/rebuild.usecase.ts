import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable } from '@nestjs/common';
import { TOPICS, type StoredEvent } from '@thumbforge/contracts';
import {
  admitsFact,
  currentEpoch,
  applyJobEvent,
  emptyBillingReplay,
  foldBillingEvent,
  observeFence,
  type JobView,
  type EpochsByPartition,
} from '@thumbforge/domain';
import { EVENT_LOG, readBatches, type EventLog } from '@thumbforge/event-log';
import { GatewayReadModel } from '../read-model/gateway-read-model.js';

export interface RebuildProgress {
  done: number;
  total: number;
}

export interface RebuildReport {
  events: number;
  accounts: { count: number; equal: boolean; mismatched: string[] };
  jobs: { count: number; equal: boolean; mismatched: string[] };
}

/**
 * Replays the log from the start into fresh folds (the same pure functions the live projections use)
 * and compares them with the live read model. Run it when writes are quiet: events appended during the
 * replay are in the live model and not in the rebuild.
 */
@Injectable()
export class RebuildUseCase {
  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly readModel: GatewayReadModel,
  ) {}

  async execute(onProgress: (progress: RebuildProgress) => void = () => undefined): Promise<RebuildReport> {
    const topics = [TOPICS.billing, TOPICS.jobs, TOPICS.webhooks];
    const sizes = await Promise.all(topics.map((t) => this.log.size(t)));
    const total = sizes.reduce((a, b) => a + b, 0);
    const billing = emptyBillingReplay(true);
    const jobs = new Map<string, JobView>();
    let epochs: EpochsByPartition = {};
    let done = 0;
    // The last event replayed per partition: the live model must have applied it before comparing.
    const last = new Map<string, StoredEvent>();
    const tick = () => {
      done += 1;
      if (done % 1000 === 0 || done === total) onProgress({ done, total });
    };
    // Billing first: a job view starts from its reservation, which must precede its render facts.
    for (const topic of topics) {
      // One await per batch of events, not per event: a replay of a million costs its folds.
      for await (const batch of readBatches(this.log, topic)) {
        for (const event of batch) {
          last.set(`${event.topic}:${event.partition}`, event);
          if (topic === TOPICS.billing) {
            epochs = observeFence(epochs, event);
            if (!admitsFact(currentEpoch(epochs, event), event)) {
              tick();
              continue;
            }
            foldBillingEvent(billing, event);
            if (event.type !== 'billing.credits-reserved') {
              tick();
              continue;
            }
          }
          const jobId = event.correlationId ?? event.aggregateId;
          const view = applyJobEvent(jobs.get(jobId), event);
          if (view) jobs.set(jobId, view);
          tick();
        }
      }
    }
    await this.readModel.settle([...last.values()]);
    if (total === 0) onProgress({ done: 0, total: 0 });

    // An account is its ledger and its history; a job, its view and billing's decision about it.
    const liveAccounts = new Map<string, unknown>();
    for (const { id, ledger } of await this.readModel.allAccounts()) {
      if (ledger) liveAccounts.set(id, { ledger, history: await this.readModel.ledgerEntries(ledger) });
    }
    const accounts = new Map<string, unknown>();
    for (const [id, ledger] of billing.ledgers) {
      accounts.set(id, { ledger, history: billing.histories!.get(id) ?? [] });
    }
    const liveViews = new Map(
      (await this.readModel.allJobs()).map(({ id: _id, folded: _folded, ...view }) => [
        view.jobId,
        view as JobView,
      ]),
    );
    const liveBillings = await this.readModel.billedJobBillings();
    const accountMismatches = diff(accounts, liveAccounts);
    const jobMismatches = diff(byJob(jobs, billing.jobs), byJob(liveViews, liveBillings));
    return {
      events: done,
      accounts: {
        count: billing.ledgers.size,
        equal: accountMismatches.length === 0,
        mismatched: accountMismatches,
      },
      jobs: { count: jobs.size, equal: jobMismatches.length === 0, mismatched: jobMismatches },
    };
  }
}

function byJob(views: Map<string, JobView>, billings: Map<string, unknown>): Map<string, unknown> {
  const ids = new Set([...views.keys(), ...billings.keys()]);
  return new Map([...ids].map((id) => [id, { view: views.get(id), billing: billings.get(id) }]));
}

function diff<T>(rebuilt: Map<string, T>, live: Map<string, T>): string[] {
  const ids = new Set([...rebuilt.keys(), ...live.keys()]);
  return [...ids]
    .filter((id) => !isDeepStrictEqual(normalize(rebuilt.get(id)), normalize(live.get(id))))
    .slice(0, 50);
}

function normalize(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
