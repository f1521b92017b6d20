export * from './render/bench.js';
export { formatReport } from './render/report.js';
export { chooseChromium, CHROMIUM, type ChromiumChoice } from './render/contenders.js';
export * from './cluster/bench.js';
export {
  billingHistory,
  type BillingHistory,
  type BillingHistoryOptions,
} from './cluster/billing-history.js';
export {
  formatClusterReport,
  reportRows,
  targetChecks,
  COLUMNS as CLUSTER_REPORT_COLUMNS,
  type TargetCheck,
} from './cluster/report.js';
export {
  busyCores,
  cpuMsByName,
  cpuPerRequest,
  idleCpu,
  type CpuPerRequest,
  type CpuProcesses,
  type IdleCpu,
} from './cluster/cpu.js';
export { hopSteps, readClusterEvents, type HopStep, type TimedEvent } from './cluster/hops.js';
export { measureStartup, type StartupMeasurement, type StartupOptions } from './startup/startup.js';
export { formatStartup, startupChecks, STARTUP_TARGET_MS } from './startup/report.js';
export { ledgerDigest, measureReplay, type ReplayLog, type ReplayMeasurement } from './cluster/replay.js';
export { silentProgress, terminalProgress, type Progress } from './cluster/progress.js';
export { percentile, summarize, type LatencySummary } from './cluster/stats.js';
export * from './service/bench.js';
export { formatServiceReport, serviceTargetChecks, TARGETS as SERVICE_TARGETS } from './service/report.js';
export * from './api/bench.js';
