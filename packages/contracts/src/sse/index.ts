export { readSse, type SseEvent } from './read.js';
export { writeSse } from './write.js';
