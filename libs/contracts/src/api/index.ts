export * from './generate-request.dto.js';
export * from './responses.dto.js';
export * from './admin.dto.js';
export * from './webhook-payloads.js';
