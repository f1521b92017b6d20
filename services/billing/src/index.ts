export { BillingModule } from './billing.module.js';
