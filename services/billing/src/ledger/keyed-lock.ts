/**
 * Runs tasks for the same key one after another, in call order; different keys run freely. Commands
 * and render outcomes for one account reach billing through two topics, and this keeps them from
 * interleaving between reading the ledger and its facts being projected.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
