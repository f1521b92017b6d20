export { describeEventLogContract, reopenableLog, type EventLogContext } from './event-log-contract.js';
export {
  collect,
  deferred,
  eventually,
  leftForGroup,
  testEvent,
  tick,
  uniqueName,
  type Deferred,
} from './helpers.js';
export { MemoryEventLog } from './memory-event-log.js';
