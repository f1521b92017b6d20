import { describeEventLogContract } from '../src/testing/index.js';
import { makeFileLog } from './support.js';

describeEventLogContract('FileEventLog', () => makeFileLog());
describeEventLogContract('FileEventLog, no fsync, 512-byte segments', () =>
  makeFileLog({ fsync: 'never', segmentBytes: 512 }),
);
