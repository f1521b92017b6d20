import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { FactAdmission } from '@thumbforge/domain';
import { EVENT_LOG, keepProjection, type EventLog, type Subscription } from '@thumbforge/event-log';
import { CONFIG, LOGGER, ReadinessRegistry, type Config, type Logger } from '@thumbforge/platform';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';
import { RenderJobUseCase } from './render-job/render-job.usecase.js';
import { RENDER_OUTCOMES_PROJECTION, RenderOutcomes } from './render-outcomes/render-outcomes.projection.js';

export const RENDERING_GROUP = 'rendering';

/**
 * Feeds reserved jobs to the renderer, `renderConcurrency` at a time. The outcome projection catches up first: only then does a
 * re-delivered reservation (after a crash or a rebalance) find the outcome it already produced.
 */
@Injectable()
export class RenderingConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly subscriptions: Array<Pick<Subscription, 'close'>> = [];
  private subscribed: Promise<void> = Promise.resolve();
  private closing = false;
  private readonly admission = new FactAdmission();

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(PROJECTION_STORE) private readonly store: ProjectionStore,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CONFIG) private readonly config: Pick<Config, 'renderConcurrency'>,
    private readonly readiness: ReadinessRegistry,
    private readonly outcomes: RenderOutcomes,
    private readonly renderJob: RenderJobUseCase,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const projector = await keepProjection({
      log: this.log,
      store: this.store,
      name: RENDER_OUTCOMES_PROJECTION,
      topics: [TOPICS.jobs],
      apply: (event) => this.outcomes.apply(event),
    });
    this.subscriptions.push(projector);

    let jobs: Subscription | undefined;
    this.subscribed = (async () => {
      await projector.caughtUp;
      if (this.closing) return;
      jobs = await this.log.subscribe({
        group: RENDERING_GROUP,
        topics: [TOPICS.billing],
        from: 'committed',
        // Jobs are independent: several render at once, each encode on its own libvips thread.
        concurrency: this.config.renderConcurrency,
        handle: (event) => this.handle(event),
      });
      this.subscriptions.push(jobs);
      if (this.closing) await jobs.close();
    })();
    this.readiness.track(
      RENDERING_GROUP,
      this.subscribed.then(() => jobs?.caughtUp),
    );
  }

  async handle(event: StoredEvent): Promise<void> {
    // Before any await, so in log order: a reservation a fenced-out billing replica decided is not rendered.
    if (!this.admission.admits(event)) return;
    if (!isEvent(event, 'billing.credits-reserved')) return;
    const { job } = event.payload;
    // Public test key jobs are answered by the gateway with the placeholder; none should get here.
    if (job.accountId === null) {
      this.logger.warn({ jobId: job.jobId }, 'ignoring a reservation without an account');
      return;
    }
    await this.renderJob.execute({ job, reservationEventId: event.id });
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    // Closing the projector ends a start-up still waiting for it; a subscription opened meanwhile
    // sees `closing` and closes itself.
    await Promise.all(this.subscriptions.map((s) => s.close()));
    await this.subscribed.catch(() => undefined);
  }
}
