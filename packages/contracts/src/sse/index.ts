export { readSse, type SseEvent } from './read.js';
