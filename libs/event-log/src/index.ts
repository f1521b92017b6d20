export * from './port.js';
export * from './dead-letter.js';
export * from './projector.js';
export {
  CorruptLogError,
  FileEventLog,
  type FileEventLogOptions,
  type FileEventLogStats,
  type RecoveryNote,
} from './file/file-event-log.js';
export { SubscriptionClosedError } from './file/file-subscription.js';
export * from './owner-fence.js';
