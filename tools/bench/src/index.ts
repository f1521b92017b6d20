export * from './render/bench.js';
export { formatReport } from './render/report.js';
export { chooseChromium, CHROMIUM, type ChromiumChoice } from './render/contenders.js';
export * from './cluster/bench.js';
export {
  billingHistory,
  type BillingHistory,
  type BillingHistoryOptions,
} from './cluster/billing-history.js';
export { formatClusterReport, reportRows, COLUMNS as CLUSTER_REPORT_COLUMNS } from './cluster/report.js';
export { ledgerDigest, measureReplay, type ReplayLog, type ReplayMeasurement } from './cluster/replay.js';
export { silentProgress, terminalProgress, type Progress } from './cluster/progress.js';
export { percentile, summarize, type LatencySummary } from './cluster/stats.js';
export * from './api/bench.js';
