export * from './schema.js';
export * from './check.js';
export * from './preview.js';
export * from './telegram-text.js';
export * from './time-zone.js';
