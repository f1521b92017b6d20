export {
  createEmbeddedApp,
  EMBEDDED_APP,
  openEmbeddedInfrastructure,
  type EmbeddedOptions,
} from './bootstrap.js';
