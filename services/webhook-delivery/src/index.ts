export { WebhookDeliveryModule } from './webhook-delivery.module.js';
