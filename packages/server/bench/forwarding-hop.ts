// The bare forwarding hop: forwards each call to one upstream (no Fastify, no credential of its
// own, no metering) and returns the answer. bare-hop.ts runs it as its own process, the floor of
// any extra hop; control-plane.ts runs the same lines inside the control plane's process, so
// bench:proxy shows what the process alone costs a chat (decision 0027, round 26).
import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';

/**
 * The hop's one call upstream, shared with fastify-hop.ts so both floors send the same request:
 * the body and the caller's Authorization to `${target}/chat/completions`, the answer read whole.
 */
export async function forwardChat(pool: Pool, target: URL, body: Buffer, authorization: string | undefined) {
  const up = await pool.request({
    method: 'POST',
    path: `${target.pathname}/chat/completions`,
    body,
    headers: { 'content-type': 'application/json', authorization: authorization ?? '' },
  });
  return {
    status: up.statusCode,
    type: String(up.headers['content-type'] ?? ''),
    body: Buffer.from(await up.body.arrayBuffer()),
  };
}

/**
 * A server that forwards every request to `${target}/chat/completions`, with its Authorization.
 * Listened with testkit's `listen` (a loopback port, 60 s keep-alive).
 */
export function forwardingHop(target: URL): Server {
  const pool = new Pool(target.origin, { connections: null, pipelining: 1 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const up = await forwardChat(pool, target, Buffer.concat(chunks), req.headers.authorization);
        res.writeHead(up.status, { 'content-type': up.type });
        res.end(up.body);
      } catch {
        // An upstream that is gone is a 502 (counted as an error by the bench), not an unhandled
        // rejection that would stop the process: inside control-plane.ts that is the control plane.
        if (!res.headersSent) res.writeHead(502);
        res.end();
      }
    });
  });
  return server;
}
