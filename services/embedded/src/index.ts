export { createEmbeddedApp, openEmbeddedInfrastructure, type EmbeddedOptions } from './bootstrap.js';
export { EmbeddedAppModule } from './app.module.js';
