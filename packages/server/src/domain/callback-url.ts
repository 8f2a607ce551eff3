// Callback URL rules of the spec: https, at most 2048 characters, and no host that points inside
// (localhost, loopback, private, link-local, and the other special-purpose ranges). Literal hosts
// are checked here; names are resolved and checked again at send time.
import { isIP } from 'node:net';
import { isPublicAddress } from '@berth/contracts/net';

export { isPublicAddress };

export const CALLBACK_URL_MAX = 2048;

export interface CallbackUrlPolicy {
  allowInsecure: boolean;
}

/** Returns why the URL is refused, or undefined when it is acceptable. */
/** `field` names the URL in the sentences (an MCP server's `url` shares the rules, DESIGN §9.2). */
export function callbackUrlProblem(raw: string, policy: CallbackUrlPolicy, field = 'callbackUrl'): string | undefined {
  if (raw.length > CALLBACK_URL_MAX) return `${field} must be at most ${CALLBACK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    return `${field} must use https`;
  }
  if (url.username || url.password) return `${field} must not carry credentials`;
  if (policy.allowInsecure) return undefined;
  // WHATWG parsing already turned "2130706433" or "0x7f.1" into dotted IPv4.
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${field} host must not be localhost`;
  if (isIP(host) && !isPublicAddress(host)) {
    return `${field} host must not be a loopback, private, link-local or otherwise internal address`;
  }
  if (!host.includes('.') && !isIP(host)) return `${field} host must be a fully qualified public name`;
  return undefined;
}
