import { describeEventLogContract, MemoryEventLog } from '../src/testing/index.js';
import { makeFileLog } from './support.js';

describeEventLogContract('FileEventLog', () => makeFileLog(), { concurrency: true });
describeEventLogContract(
  'FileEventLog, no fsync, 512-byte segments',
  () => makeFileLog({ fsync: 'never', segmentBytes: 512 }),
  { concurrency: true },
);
describeEventLogContract(
  'FileEventLog, every read checked in a worker thread',
  () => makeFileLog({ scanInWorkerFrom: 0, segmentBytes: 512 }),
  { concurrency: true },
);

// The in-memory double that services' unit tests use keeps the port's promises too.
describeEventLogContract('MemoryEventLog (test double)', async () => ({
  log: new MemoryEventLog(),
  cleanup: async () => undefined,
}));
