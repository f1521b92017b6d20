/**
 * Topics and their partition keys. Each topic has one owning service that writes its facts; commands
 * addressed to the owner are appended to the owner's topic by whoever asks, keyed the same way, so
 * that one writer handles an aggregate's commands in order (DESIGN §3).
 */
export const TOPICS = {
  /** Owner: gateway. Key: accountId. API keys, webhook secrets and idempotency keys. */
  gateway: 'thumbforge.gateway',
  /** Owner: billing. Key: accountId. Accounts, plans, the credit ledger; reservation commands. */
  billing: 'thumbforge.billing',
  /** Owner: asset. Key: accountId. Saved photo, logo, reference sets; job asset resolution. */
  assets: 'thumbforge.assets',
  /** Owner: rendering. Key: jobId. Render outcomes. */
  jobs: 'thumbforge.jobs',
  /** Owner: webhook-delivery. Key: jobId. Delivery requests and attempts. */
  webhooks: 'thumbforge.webhooks',
  /** Events a consumer could not handle after its retries. */
  deadLetter: 'thumbforge.dead-letter',
} as const;
export type Topic = (typeof TOPICS)[keyof typeof TOPICS];
