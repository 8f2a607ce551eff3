// What a client may be told about a failed connection: the kind of failure, never the address,
// port or socket path in Node's own message (those go to the log, under the request id).
const KINDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOENT: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

export function describeNetworkError(err: unknown): string {
  let e = err as { code?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 3; depth++, e = e.cause as typeof e) {
    if (e.code && KINDS[e.code]) return KINDS[e.code]!;
  }
  return 'network error';
}
