/**
 * Hands batches from a kafkajs batch callback to a pulling reader: `put` resolves once fewer than
 * `ahead` batches wait untaken. With 1 the consumer fetches no further than the reader reads; with 2
 * the next fetch is on its way while the reader works through the batch it has.
 */
export class Handoff<T> {
  constructor(private readonly ahead = 1) {}

  private readonly queue: T[] = [];
  private failure: Error | undefined;
  private closed = false;
  private onPut: (() => void) | undefined;
  private onTaken: (() => void)[] = [];

  /** Resolves once fewer than `ahead` items wait untaken, or at once if the handoff is closed. */
  put(item: T): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.queue.push(item);
    this.wakeReader();
    if (this.queue.length < this.ahead) return Promise.resolve();
    return new Promise((resolve) => this.onTaken.push(resolve));
  }

  async take(): Promise<T> {
    while (this.queue.length === 0) {
      if (this.failure) throw this.failure;
      if (this.closed) throw new Error('read closed');
      await new Promise<void>((resolve) => (this.onPut = resolve));
    }
    const item = this.queue.shift()!;
    if (this.queue.length < this.ahead) this.onTaken.shift()?.();
    return item;
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.wakeReader();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    for (const taken of this.onTaken.splice(0)) taken();
    this.wakeReader();
  }

  private wakeReader(): void {
    const wake = this.onPut;
    this.onPut = undefined;
    wake?.();
  }
}
