export * from './body.js';
export * from './events.js';
export * from './responses.js';
export * from './image.js';
