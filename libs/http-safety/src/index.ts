export { classifyAddress, isPublicAddress, type AddressClass } from './classify.js';
export {
  checkWebhookUrl,
  isLocalhostName,
  systemLookup,
  WEBHOOK_URL_REFUSALS,
  type HostLookup,
  type WebhookUrlCheckOptions,
  type WebhookUrlVerdict,
} from './check-url.js';
export {
  createGuardedDispatcher,
  createGuardedLookup,
  UnsafeAddressError,
  type GuardedDispatcherOptions,
} from './dispatcher.js';
