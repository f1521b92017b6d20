import { Injectable } from '@nestjs/common';

export type ComponentState = 'starting' | 'ready' | 'failed';

/**
 * Components (projections catching up, consumers starting) report here; `/health/ready` answers 200
 * only when every tracked component is ready. Global in every composition.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly states = new Map<string, { state: ComponentState; error?: string }>();
  private drainingSince: Date | null = null;

  /** SIGTERM: readiness turns 503 and new requests are refused while in-flight ones finish. */
  beginDrain(): void {
    this.drainingSince ??= new Date();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  track(component: string, ready: Promise<unknown>): void {
    this.states.set(component, { state: 'starting' });
    ready.then(
      () => this.states.set(component, { state: 'ready' }),
      (error: unknown) => this.states.set(component, { state: 'failed', error: String(error) }),
    );
  }

  snapshot(): { ready: boolean; components: Record<string, { state: ComponentState; error?: string }> } {
    const components = Object.fromEntries(this.states);
    return {
      ready: !this.draining && [...this.states.values()].every((c) => c.state === 'ready'),
      components: this.draining
        ? { ...components, shutdown: { state: 'failed', error: 'draining before exit' } }
        : components,
    };
  }
}
