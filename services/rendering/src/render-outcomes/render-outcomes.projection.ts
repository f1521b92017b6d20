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

/** Outcomes this process wrote that the projection has not reached yet, at most this many. */
const RECORDED_AHEAD = 1_000;

/**
 * The rendering service's own view of TOPICS.jobs: which jobs already have a render outcome. It is
 * what makes a re-delivered reservation a no-op.
 */
@Injectable()
export class RenderOutcomes {
  /**
   * jobId → the outcome this process writes straight after appending it, and whether that write
   * succeeded: when the projection reaches the event, even before the write, the document is not
   * written a second time.
   */
  private readonly recorded = new Map<string, { fingerprint: string; written: Promise<boolean> }>();

  constructor(@Inject(PROJECTION_STORE) private readonly store: ProjectionStore) {}

  private get collection() {
    return this.store.collection<RenderOutcome>(RENDER_OUTCOMES_PROJECTION);
  }

  get(jobId: string): Promise<RenderOutcome | undefined> {
    return this.collection.get(jobId);
  }

  /**
   * Writes an outcome as soon as `appended`, the append of its event, resolves, so a re-delivery right
   * behind it is already seen. Known from the start: the projection may reach the event first.
   */
  async record(outcome: RenderOutcome, appended: Promise<unknown>): Promise<void> {
    const written = appended.then(() => this.collection.put(outcome));
    if (this.recorded.size >= RECORDED_AHEAD) this.recorded.delete(this.recorded.keys().next().value!);
    this.recorded.set(outcome.id, {
      fingerprint: fingerprint(outcome),
      written: written.then(
        () => true,
        () => false,
      ),
    });
    await written;
  }

  async apply(event: StoredEvent): Promise<void> {
    if (event.topic !== TOPICS.jobs) return;
    if (isEvent(event, 'render.succeeded') || isEvent(event, 'render.failed')) {
      const outcome: RenderOutcome = {
        id: event.payload.jobId,
        outcome: event.type === 'render.succeeded' ? 'succeeded' : 'failed',
        eventId: event.id,
      };
      const recorded = this.recorded.get(outcome.id);
      this.recorded.delete(outcome.id);
      if (recorded?.fingerprint === fingerprint(outcome) && (await recorded.written)) return;
      await this.collection.put(outcome);
    }
  }
}

function fingerprint({ outcome, eventId }: RenderOutcome): string {
  return `${outcome} ${eventId}`;
}
