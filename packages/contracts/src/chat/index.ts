export * from './body.js';
export * from './events.js';
