// The shared contracts of the control plane and the agent runtime. Each area lives in its own
// folder (chat schemas, SSE codec, error codes, network address policy) and is re-exported here.
export * from './chat/index.js';
export * from './sse/index.js';
export * from './errors/index.js';
export * from './settings/index.js';
