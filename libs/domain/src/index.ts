export * from './ledger/period.js';
export * from './ledger/ledger.js';
export * from './ledger/decisions.js';
export * from './jobs/job-view.js';
export * from './assets/resolve-job-assets.js';
export * from './fence/owner-fence.js';
export * from './idempotency/idempotency-record.js';
