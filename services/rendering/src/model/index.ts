export * from './generation-model.provider.js';
export * from './images-api.js';
export * from './local.model.js';
export * from './openai.model.js';
export * from './port.js';
