export * from './render/bench.js';
export { formatReport } from './render/report.js';
export { chooseChromium, CHROMIUM, type ChromiumChoice } from './render/contenders.js';
