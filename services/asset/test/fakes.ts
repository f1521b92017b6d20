import { createLogger, type Clock, type Logger } from '@thumbforge/platform';

export { MemoryEventLog } from '@thumbforge/event-log/testing';

export class FakeClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  set(iso: string): void {
    this.current = new Date(iso);
  }
}

export const silentLogger: Logger = createLogger({ logLevel: 'silent' });
