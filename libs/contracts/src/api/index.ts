/**
 * The HTTP API's DTOs, with their OpenAPI and validation decorators: only the gateway serves them, so
 * they are a subpath of their own and the other services never load @nestjs/swagger and
 * class-validator. The webhook payloads, which webhook-delivery sends, stay in the main entry.
 */
export * from './generate-request.dto.js';
export * from './responses.dto.js';
export * from './admin.dto.js';
