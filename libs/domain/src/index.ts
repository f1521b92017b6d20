export * from './ledger/period.js';
export * from './ledger/ledger.js';
export * from './ledger/decisions.js';
export * from './jobs/job-view.js';
export * from './idempotency/idempotency-record.js';
