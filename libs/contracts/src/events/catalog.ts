import type { Rejection } from '../errors.js';
import type { Format, LogoPosition } from '../formats.js';
import type { Plan } from '../plans.js';
import type { EventEnvelope, StoredEvent } from './envelope.js';
import type { JobSpec, LogoPlacement, ResolvedAssets } from './job-spec.js';

/**
 * The event catalogue, version 1. Names ending in `-requested` are commands addressed to the topic's
 * owner; every other name is a fact written only by that owner.
 */

// ---- gateway (key: accountId) --------------------------------------------------------------------
export interface ApiKeyIssuedV1 {
  accountId: string;
  /** SHA-256 hex of the key: lookup. */
  keyHash: string;
  /** AES-256-GCM of the key under the master secret: the webhook HMAC needs the key itself. */
  keyCiphertext: string;
  /** The last four characters, for display. */
  keyHint: string;
}

/**
 * A Standard Webhooks signing secret (`whsec_…`) for the account. The secrets issued before it keep
 * signing beside it until `previousExpireAt` (the rotation's overlap window), then stop.
 */
export interface WebhookSecretIssuedV1 {
  accountId: string;
  /** AES-256-GCM of the secret under the master secret, like API keys. */
  secretCiphertext: string;
  /** The last four characters, for display. */
  secretHint: string;
  previousExpireAt: string;
}

/** The account's secret for signed image URLs; it replaces the one before (whose URLs stop working). */
export interface UrlSigningSecretIssuedV1 {
  accountId: string;
  secretCiphertext: string;
  secretHint: string;
}

/**
 * A request carrying an `Idempotency-Key` asks to run as `jobId`. The first claim of an account's key
 * in log order wins until `lockExpiresAt`, or for 24 h once completed; later claims see the winner.
 */
export interface IdempotencyKeyClaimedV1 {
  accountId: string;
  key: string;
  /** SHA-256 hex of the canonical request body: the same key with another body is a conflict. */
  requestHash: string;
  jobId: string;
  lockExpiresAt: string;
}
/**
 * How to answer a replay. `job`: from the job's state (a sync request whose job was accepted; its
 * image stays in storage, never in the event); `response`: this small body (a 202 or a 4xx).
 */
export type IdempotentResponse =
  { kind: 'job' } | { kind: 'response'; status: number; body: Record<string, unknown> };
export interface IdempotencyKeyCompletedV1 {
  accountId: string;
  key: string;
  jobId: string;
  response: IdempotentResponse;
}
/** The claim ran into a transient failure (429, a timeout before acceptance): the key is free again. */
export interface IdempotencyKeyReleasedV1 {
  accountId: string;
  key: string;
  jobId: string;
}

// ---- billing (key: accountId) --------------------------------------------------------------------
export interface AccountOpenRequestedV1 {
  accountId: string;
  plan: Plan;
  apiAccess: boolean;
}
export interface AccountOpenedV1 {
  accountId: string;
  plan: Plan;
  apiAccess: boolean;
}
export interface AccountChangeRequestedV1 {
  accountId: string;
  plan?: Plan;
  apiAccess?: boolean;
}
export interface AccountChangedV1 {
  accountId: string;
  plan?: Plan;
  apiAccess?: boolean;
}
/** A new calendar month started for the account: allowance restored, usage back to zero. */
export interface PeriodStartedV1 {
  accountId: string;
  periodStart: string;
  periodEnd: string;
  allowance: number;
}
export interface ReservationRequestedV1 {
  job: JobSpec;
}
export interface CreditsReservedV1 {
  accountId: string;
  jobId: string;
  amount: number;
  job: JobSpec;
}
export interface CreditsRejectedV1 {
  accountId: string;
  jobId: string;
  amount: number;
  remaining: number;
  reason: Rejection;
}
export interface CreditsCapturedV1 {
  accountId: string;
  jobId: string;
  amount: number;
}
export interface CreditsReleasedV1 {
  accountId: string;
  jobId: string;
  amount: number;
  reason: string;
}

// ---- assets (key: accountId) ---------------------------------------------------------------------
export interface PhotoSaveRequestedV1 {
  accountId: string;
  /** Private-bucket key of the already validated upload. */
  key: string;
}
export interface PhotoSavedV1 {
  accountId: string;
  key: string;
}
export interface PhotoRemoveRequestedV1 {
  accountId: string;
}
export interface PhotoRemovedV1 {
  accountId: string;
}
export interface LogoSaveRequestedV1 extends LogoPlacement {
  accountId: string;
}
export interface LogoSavedV1 extends LogoPlacement {
  accountId: string;
}
export interface LogoRemoveRequestedV1 {
  accountId: string;
}
export interface LogoRemovedV1 {
  accountId: string;
}
export interface ReferenceSetCreateRequestedV1 {
  accountId: string;
  setId: string;
  format: Format;
  imageKeys: string[];
}
export interface ReferenceSetCreatedV1 {
  accountId: string;
  setId: string;
  format: Format;
  imageKeys: string[];
}
export interface ReferenceSetRemoveRequestedV1 {
  accountId: string;
  setId: string;
}
export interface ReferenceSetRemovedV1 {
  accountId: string;
  setId: string;
}
export interface JobAssetsRequestedV1 {
  jobId: string;
  accountId: string;
  plan: Plan;
  requestedFormat: Format | null;
  usePhoto: boolean;
  useLogo: boolean;
  customAssetsId: string | null;
  /** Private-bucket keys of inline images sent with the request; they override saved ones. */
  inlinePhotoKey: string | null;
  inlineLogoKey: string | null;
}
export interface JobAssetsResolvedV1 extends ResolvedAssets {
  jobId: string;
  accountId: string;
}
export interface JobAssetsRejectedV1 {
  jobId: string;
  accountId: string;
  reason: Rejection;
}

// ---- jobs (key: jobId) ---------------------------------------------------------------------------
export interface RenderSucceededV1 {
  jobId: string;
  generationId: string;
  accountId: string | null;
  format: Format;
  outputFormat: 'webp' | 'png';
  width: number;
  height: number;
  bytes: number;
  /** Where the image is kept for the job's result, in `resultBucket`. */
  resultKey: string;
  /**
   * `public`: the result is the CDN copy `imageUrl` links to, the only one kept. Absent: the private
   * bucket, where the result goes when the upload to the delivery network fails (and where every
   * result went before the CDN copy was enough).
   */
  resultBucket?: ResultBucket;
  /** The public CDN link, or null when the upload to the delivery network failed. */
  imageUrl: string | null;
  webhookUrl: string | null;
  /**
   * The image itself, base64, only when neither bucket could keep it (object storage down): the sync
   * reply and the webhook then still carry it. Absent otherwise.
   */
  inlineImage?: string;
}

export type ResultBucket = 'private' | 'public';

/** The bucket and key of a job's stored result (`render.succeeded`, a completed webhook's outcome). */
export function resultLocation(result: { resultKey: string; resultBucket?: ResultBucket }): {
  bucket: ResultBucket;
  key: string;
} {
  return { bucket: result.resultBucket ?? 'private', key: result.resultKey };
}

const RENDERED_RESULT_FIELDS = [
  'generationId',
  'format',
  'outputFormat',
  'width',
  'height',
  'resultKey',
  'resultBucket',
  'imageUrl',
  'inlineImage',
] as const satisfies readonly (keyof RenderSucceededV1)[];

/** What a completed job shows of its render (its status, its webhook): the image's place, link and size. */
export type RenderedResult = Pick<RenderSucceededV1, (typeof RENDERED_RESULT_FIELDS)[number]>;

/** A render fact's `RenderedResult`, without the optional fields it does not have. */
export function renderedResult(fact: RenderSucceededV1): RenderedResult {
  const result: Record<string, unknown> = {};
  for (const field of RENDERED_RESULT_FIELDS) if (fact[field] !== undefined) result[field] = fact[field];
  return result as unknown as RenderedResult;
}

export interface RenderFailedV1 {
  jobId: string;
  accountId: string | null;
  error: string;
  webhookUrl: string | null;
}

// ---- webhooks (key: jobId) -----------------------------------------------------------------------
export type WebhookOutcome =
  ({ event: 'generation.completed' } & RenderedResult) | { event: 'generation.failed'; error: string };

export interface WebhookDeliveryRequestedV1 {
  jobId: string;
  /** null: signed with the public test key. */
  accountId: string | null;
  url: string;
  outcome: WebhookOutcome;
  /** The `timestamp` of the body; fixed here so that every attempt sends identical bytes. */
  timestamp: string;
}
export interface WebhookAttemptFailedV1 {
  jobId: string;
  attempt: number;
  status: number | null;
  error: string;
  /** When the next attempt is due, or null when this was the last one. */
  nextAttemptAt: string | null;
}
export interface WebhookDeliveredV1 {
  jobId: string;
  attempt: number;
  status: number;
}
export interface WebhookExhaustedV1 {
  jobId: string;
  attempts: number;
  lastError: string;
}

// ---- any topic with one writer per partition (key: the partition) --------------------------------
/**
 * A replica took over a partition of a one-writer topic: appended to that partition before its
 * first decision there. Its offset is the new owner epoch; facts stamped with an older one that land
 * after it are dropped by every fold (see `EventEnvelope.fence`).
 */
export interface OwnerFencedV1 {
  /** The consumer group whose member took the partition (e.g. `billing`). */
  writer: string;
  partition: number;
}

/** type name → payload; the single source of truth for every producer and consumer. */
export interface EventPayloads {
  'gateway.api-key-issued': ApiKeyIssuedV1;
  'gateway.webhook-secret-issued': WebhookSecretIssuedV1;
  'gateway.url-signing-secret-issued': UrlSigningSecretIssuedV1;
  'gateway.idempotency-key-claimed': IdempotencyKeyClaimedV1;
  'gateway.idempotency-key-completed': IdempotencyKeyCompletedV1;
  'gateway.idempotency-key-released': IdempotencyKeyReleasedV1;
  'billing.account-open-requested': AccountOpenRequestedV1;
  'billing.account-opened': AccountOpenedV1;
  'billing.account-change-requested': AccountChangeRequestedV1;
  'billing.account-changed': AccountChangedV1;
  'billing.period-started': PeriodStartedV1;
  'billing.reservation-requested': ReservationRequestedV1;
  'billing.credits-reserved': CreditsReservedV1;
  'billing.credits-rejected': CreditsRejectedV1;
  'billing.credits-captured': CreditsCapturedV1;
  'billing.credits-released': CreditsReleasedV1;
  'asset.photo-save-requested': PhotoSaveRequestedV1;
  'asset.photo-saved': PhotoSavedV1;
  'asset.photo-remove-requested': PhotoRemoveRequestedV1;
  'asset.photo-removed': PhotoRemovedV1;
  'asset.logo-save-requested': LogoSaveRequestedV1;
  'asset.logo-saved': LogoSavedV1;
  'asset.logo-remove-requested': LogoRemoveRequestedV1;
  'asset.logo-removed': LogoRemovedV1;
  'asset.reference-set-create-requested': ReferenceSetCreateRequestedV1;
  'asset.reference-set-created': ReferenceSetCreatedV1;
  'asset.reference-set-remove-requested': ReferenceSetRemoveRequestedV1;
  'asset.reference-set-removed': ReferenceSetRemovedV1;
  'asset.job-assets-requested': JobAssetsRequestedV1;
  'asset.job-assets-resolved': JobAssetsResolvedV1;
  'asset.job-assets-rejected': JobAssetsRejectedV1;
  'render.succeeded': RenderSucceededV1;
  'render.failed': RenderFailedV1;
  'webhook.delivery-requested': WebhookDeliveryRequestedV1;
  'webhook.attempt-failed': WebhookAttemptFailedV1;
  'webhook.delivered': WebhookDeliveredV1;
  'webhook.exhausted': WebhookExhaustedV1;
  'log.owner-fenced': OwnerFencedV1;
}
export type EventType = keyof EventPayloads;

/** A typed event of the catalogue, narrowed by `type`. */
export type ThumbforgeEvent = { [K in EventType]: EventEnvelope<K, EventPayloads[K]> }[EventType];
export type StoredThumbforgeEvent = { [K in EventType]: StoredEvent<K, EventPayloads[K]> }[EventType];

export function isEvent<K extends EventType>(
  event: StoredEvent,
  type: K,
): event is StoredEvent<K, EventPayloads[K]> {
  return event.type === type;
}

export type { LogoPosition };
