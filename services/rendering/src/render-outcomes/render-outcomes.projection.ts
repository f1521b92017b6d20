import { Inject, Injectable } from '@nestjs/common';
import { isEvent, TOPICS, type StoredEvent } from '@thumbforge/contracts';
import { PROJECTION_STORE, type ProjectionStore } from '@thumbforge/projection-store';

export const RENDER_OUTCOMES_PROJECTION = 'rendering.render-outcomes';

export interface RenderOutcome {
  /** The job id. */
  id: string;
  outcome: 'succeeded' | 'failed';
  /** The render event that recorded it. */
  eventId: string;
}

/**
 * The rendering service's own view of TOPICS.jobs: which jobs already have a render outcome. It is
 * what makes a re-delivered reservation a no-op.
 */
@Injectable()
export class RenderOutcomes {
  constructor(@Inject(PROJECTION_STORE) private readonly store: ProjectionStore) {}

  private get collection() {
    return this.store.collection<RenderOutcome>(RENDER_OUTCOMES_PROJECTION);
  }

  get(jobId: string): Promise<RenderOutcome | undefined> {
    return this.collection.get(jobId);
  }

  /** Written straight after appending an outcome, so a re-delivery right behind it is already seen. */
  record(outcome: RenderOutcome): Promise<void> {
    return this.collection.put(outcome);
  }

  async apply(event: StoredEvent): Promise<void> {
    if (event.topic !== TOPICS.jobs) return;
    if (isEvent(event, 'render.succeeded') || isEvent(event, 'render.failed')) {
      const outcome = event.type === 'render.succeeded' ? 'succeeded' : 'failed';
      await this.record({ id: event.payload.jobId, outcome, eventId: event.id });
    }
  }
}
