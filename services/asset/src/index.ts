export { AssetModule } from './asset.module.js';
