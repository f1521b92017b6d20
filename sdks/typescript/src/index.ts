export * from './types.js';
export * from './errors.js';
export { Thumbforge, retryAfterMs, type GenerateOptions, type ThumbforgeOptions } from './client.js';
export { verifyServiceSignature, verifyStandardWebhook, verifyWebhook, type HeaderBag } from './webhooks.js';
export { signedImageUrl, type SignedImageParams } from './signed-url.js';
