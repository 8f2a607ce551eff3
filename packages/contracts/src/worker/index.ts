export * from './spec.js';
export * from './mount-env.js';
