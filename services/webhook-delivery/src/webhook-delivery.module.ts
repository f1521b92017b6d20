import { Module } from '@nestjs/common';
import { AttemptDeliveryUseCase } from './attempt-delivery/attempt-delivery.usecase.js';
import { AttemptFence } from './attempt-delivery/attempt-fence.js';
import { ResultImages } from './attempt-delivery/result-images.js';
import { WebhookSender } from './attempt-delivery/webhook-sender.js';
import { DeliveryProjection } from './deliveries/delivery-projection.js';
import { SigningKeys } from './deliveries/signing-keys.js';
import { RequestDeliveryUseCase } from './request-delivery/request-delivery.usecase.js';
import { DeliveryScheduler } from './scheduling/delivery-scheduler.js';
import { systemTimers, WEBHOOK_TIMERS } from './scheduling/timers.js';
import { WebhookDeliveryConsumer } from './webhook-delivery.consumer.js';

/**
 * Owner of TOPICS.webhooks: turns render outcomes into signed POSTs to the job's webhookUrl, with
 * retries, resumable after a crash. Expects the global ports (EVENT_LOG, PROJECTION_STORE,
 * OBJECT_STORE, CONFIG, CLOCK, LOGGER) and ReadinessRegistry from the composition root.
 */
@Module({
  providers: [
    { provide: WEBHOOK_TIMERS, useValue: systemTimers },
    DeliveryProjection,
    SigningKeys,
    WebhookSender,
    RequestDeliveryUseCase,
    AttemptFence,
    ResultImages,
    AttemptDeliveryUseCase,
    DeliveryScheduler,
    WebhookDeliveryConsumer,
  ],
})
export class WebhookDeliveryModule {}
