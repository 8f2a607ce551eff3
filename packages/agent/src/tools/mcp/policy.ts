// Where an assistant's MCP servers may be reached (DESIGN §9.2, the callback rules): https and
// public addresses only, unless the host runs with MCP_ALLOW_INSECURE=true (development, tests).
import { isPublicAddress } from '@berth/contracts/net';

export interface McpNetworkPolicy {
  /** Plain http is refused unless false. */
  httpsOnly: boolean;
  /** Whether a connection may go to this IP address (every resolved address is checked). */
  addressAllowed(address: string): boolean;
}

export const publicOnly: McpNetworkPolicy = { httpsOnly: true, addressAllowed: isPublicAddress };
export const anyAddress: McpNetworkPolicy = { httpsOnly: false, addressAllowed: () => true };

export const mcpPolicy = (allowInsecure: boolean | undefined) => (allowInsecure ? anyAddress : publicOnly);
