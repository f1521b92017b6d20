export { describeEventLogContract, type EventLogContext } from './event-log-contract.js';
export { collect, deferred, leftForGroup, testEvent, tick, uniqueName, type Deferred } from './helpers.js';
export { MemoryEventLog } from './memory-event-log.js';
