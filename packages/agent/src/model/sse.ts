// The provider's SSE stream is read with the shared reader (streaming UTF-8 decoding included).
export { readSse } from '@berth/contracts/sse/read';
