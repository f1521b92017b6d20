import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '@thumbforge/contracts';
import { FileEventLog } from '@thumbforge/event-log';
import { LocalObjectStore } from '@thumbforge/object-store';

/** A fresh temporary data directory: the embedded event log in `log/`, room for objects beside it. */
export class TempDataDir {
  private constructor(
    readonly dir: string,
    public log: FileEventLog,
  ) {}

  static async open(): Promise<TempDataDir> {
    const dir = await mkdtemp(join(tmpdir(), 'thumbforge-webhooks-'));
    return new TempDataDir(dir, await TempDataDir.openAt(dir));
  }

  private static async openAt(dir: string): Promise<FileEventLog> {
    // Durability is not under test here; skipping fsync keeps the suite fast on a shared machine.
    const log = new FileEventLog({ dir: join(dir, 'log'), fsync: 'never' });
    await log.open();
    return log;
  }

  /** Closes the log and opens it again from disk, as a restarted process would. */
  async reopen(): Promise<FileEventLog> {
    await this.log.close();
    this.log = await TempDataDir.openAt(this.dir);
    return this.log;
  }

  /** The embedded object store under this directory. */
  objects(): LocalObjectStore {
    return new LocalObjectStore({ dir: join(this.dir, 'objects'), publicBaseUrl: 'http://cdn.test' });
  }

  async events(topic: string): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for await (const event of this.log.read(topic)) events.push(event);
    return events;
  }

  async dispose(): Promise<void> {
    await this.log.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
