export * from './codes.js';
export * from './retry-headers.js';
