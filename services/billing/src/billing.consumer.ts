import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { EVENT_LOG, OwnerFence, type EventLog, type Subscription } from '@thumbforge/event-log';
import { LOGGER, ReadinessRegistry, type Logger } from '@thumbforge/platform';
import { ChangeAccountUseCase } from './change-account/change-account.usecase.js';
import { LedgerProjection } from './ledger/ledger-projection.js';
import { OpenAccountUseCase } from './open-account/open-account.usecase.js';
import { ReserveCreditsUseCase } from './reserve-credits/reserve-credits.usecase.js';
import { SettleCreditsUseCase } from './settle-credits/settle-credits.usecase.js';

export const BILLING_GROUP = 'billing';

/**
 * Billing's inbox: account and reservation commands on the billing topic, render outcomes on the jobs
 * topic. One event at a time, from the group's committed position, so every command is handled at
 * least once; the use cases make a second handling a no-op. Commands are decided under the replica's
 * owner epoch for their partition (`OwnerFence`): a replica that lost the partition cannot add a
 * decision to the ledger, and a new owner decides only once its ledger holds everything before its
 * marker.
 */
@Injectable()
export class BillingConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscription: Subscription | null = null;
  private readonly fence: OwnerFence;
  /** Fired at shutdown: ends an outcome's wait for its reservation (`SettleCreditsUseCase`). */
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    private readonly ledgers: LedgerProjection,
    private readonly readiness: ReadinessRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly openAccount: OpenAccountUseCase,
    private readonly changeAccount: ChangeAccountUseCase,
    private readonly reserveCredits: ReserveCreditsUseCase,
    private readonly settleCredits: SettleCreditsUseCase,
  ) {
    this.fence = new OwnerFence({
      log,
      topic: TOPICS.billing,
      writer: BILLING_GROUP,
      reached: (marker) => this.ledgers.reached(marker),
      current: (partition) => this.ledgers.epoch(partition),
      logger,
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ledgers.start();
    this.readiness.track('billing.ledger', this.ledgers.caughtUp);
    this.subscription = await this.log.subscribe({
      group: BILLING_GROUP,
      topics: [TOPICS.billing, TOPICS.jobs],
      from: 'committed',
      // Partitions are decided independently (one writer per account, accounts keyed to one
      // partition) and a decision mostly waits for the database: a replica holding several decides
      // them at once instead of queueing one behind another.
      partitionsAtOnce: true,
      handle: (event) => this.handle(event),
      onAssignment: (partitions) => this.fence.assign(partitions),
    });
    this.readiness.track('billing.consumer', this.subscription.caughtUp);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Commands first: an in-flight one may still be waiting for the projection. An outcome waiting
    // for its reservation stops waiting and is redelivered to the partition's next owner.
    this.stopping.abort();
    await this.subscription?.close();
    this.subscription = null;
    this.fence.close();
    await this.ledgers.close();
  }

  private async handle(event: StoredEvent): Promise<void> {
    const command = event.topic === TOPICS.billing && event.type.endsWith('-requested');
    const outcome = event.topic === TOPICS.jobs && event.type.startsWith('render.');
    if (!command && !outcome) return;
    if (event.version !== 1) {
      this.logger.warn(
        { type: event.type, version: event.version, eventId: event.id },
        'unknown event version skipped',
      );
      return;
    }
    await this.ledgers.caughtUp;
    if (command) await this.handleCommand(event);
    else await this.handleRenderOutcome(event);
  }

  private async handleCommand(event: StoredEvent): Promise<void> {
    await this.fence.decide(event, async (fence) => {
      // Every fact written before this command, in its account's partition, is applied first. Not
      // the command itself: the ledger has nothing to fold from it, and its own fetch of the command
      // is not worth waiting for.
      await this.ledgers.reached({
        topic: event.topic,
        partition: event.partition,
        offset: event.offset - 1,
      });
      await this.decide(event, fence);
    });
  }

  private async decide(event: StoredEvent, fence: number): Promise<void> {
    if (isEvent(event, 'billing.account-open-requested')) {
      await this.openAccount.execute({ commandId: event.id, ...event.payload, fence });
    } else if (isEvent(event, 'billing.account-change-requested')) {
      await this.changeAccount.execute({ commandId: event.id, ...event.payload, fence });
    } else if (isEvent(event, 'billing.reservation-requested')) {
      const { job } = event.payload;
      await this.reserveCredits.execute({
        commandId: event.id,
        accountId: job.accountId ?? event.aggregateId,
        job,
        fence,
      });
    }
  }

  private async handleRenderOutcome(event: StoredEvent): Promise<void> {
    if (isEvent(event, 'render.succeeded')) {
      const { accountId, jobId } = event.payload;
      if (accountId) {
        await this.settleCredits.execute(
          { commandId: event.id, accountId, jobId, outcome: 'captured' },
          this.stopping.signal,
        );
      }
    } else if (isEvent(event, 'render.failed')) {
      const { accountId, jobId, error } = event.payload;
      if (accountId) {
        await this.settleCredits.execute(
          { commandId: event.id, accountId, jobId, outcome: 'released', reason: error },
          this.stopping.signal,
        );
      }
    }
  }
}
