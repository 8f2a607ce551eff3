// @berth/client: the typed client of the Berth control plane (generated from its OpenAPI document).
export { createBerthClient, type BerthClient, type BerthClientOptions, type Middleware } from './create-client.js';
export { BerthApiError, toBerthError, unwrap } from './errors.js';
export { readChatStream, type ChatStreamEvent } from './chat-stream.js';
export type { components, operations, paths } from './generated/schema.js';
