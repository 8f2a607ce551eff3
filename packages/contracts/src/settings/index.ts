export * from './schema.js';
export * from './check.js';
