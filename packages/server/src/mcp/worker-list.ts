// What an assistant's worker is sent about its MCP servers: the stored rows with their headers
// opened. Built only to go to that worker (its create body or PUT …/mcp-servers), never logged.
import type { McpServerConfig } from '@berth/contracts/mcp';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import type { StoredMcpServer } from '../platform/store/mcp-servers.js';

export function workerList(secrets: Pick<SecretBox, 'open'>, rows: readonly StoredMcpServer[]): McpServerConfig[] {
  return rows.map((r) => ({
    name: r.name,
    url: r.url,
    ...(r.headersEnc ? { headers: JSON.parse(secrets.open(r.headersEnc)) as Record<string, string> } : {}),
    ...(r.enabledTools ? { enabledTools: r.enabledTools } : {}),
  }));
}
