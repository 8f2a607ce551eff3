// catalog/ as the other capabilities see it: what they may import, and only from here
// (.dependency-cruiser.cjs: server-capabilities-meet-through-their-faces).
export { capabilitiesOf } from './model-catalog.js';
export type { CatalogProvider, ModelCatalog, ModelPricing } from './model-catalog.js';
