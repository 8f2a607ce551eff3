// MCP servers for tests (a separate entry point: the SDK loads only in the tests that use it).
export { startEverythingServer, type EverythingServer } from './everything-server.js';
export {
  DEFAULT_MCP_TOOLS,
  FakeMcpServer,
  type FakeMcpTool,
  type McpMisbehaviour,
  type RecordedMcpCall,
} from './fake-mcp-server.js';
