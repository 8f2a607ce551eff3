// The bare forwarding hop: forwards each call to one upstream (no Fastify, no credential of its
// own, no metering) and returns the answer. bare-hop.ts runs it as its own process, the floor of
// any extra hop; control-plane.ts runs the same lines inside the control plane's process, so
// bench:proxy shows what the process alone costs a chat (decision 0027, round 26).
import { createServer, type Server } from 'node:http';
import { Pool } from 'undici';

const chatRequest = (target: URL, body: Buffer, authorization: string | undefined) => ({
  method: 'POST' as const,
  path: `${target.pathname}/chat/completions`,
  body,
  headers: { 'content-type': 'application/json', authorization: authorization ?? '' },
});

/**
 * The hop's one call upstream, shared with fastify-hop.ts so both floors send the same request:
 * the body and the caller's Authorization to `${target}/chat/completions`, the answer read whole.
 */
export async function forwardChat(pool: Pool, target: URL, body: Buffer, authorization: string | undefined) {
  const up = await pool.request(chatRequest(target, body, authorization));
  return {
    status: up.statusCode,
    type: String(up.headers['content-type'] ?? ''),
    body: Buffer.from(await up.body.arrayBuffer()),
  };
}

/**
 * A server that forwards every request to `${target}/chat/completions`, with its Authorization.
 * A streamed call (`"stream":true` in its body) is passed through as it comes, the floor bench:streams
 * holds open streams on and what the gateway does with a streamed call; any other answer is read whole.
 * Listened with testkit's `listen` (a loopback port, 60 s keep-alive).
 */
export function forwardingHop(target: URL): Server {
  const pool = new Pool(target.origin, { connections: null, pipelining: 1 });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = Buffer.concat(chunks);
        // A stream (bench:streams' never ends) must flow, not wait to be read whole: undici's
        // stream() writes each piece straight into the response, the plainest pass-through.
        if (body.includes('"stream":true')) {
          await pool.stream(chatRequest(target, body, req.headers.authorization), ({ statusCode, headers }) => {
            res.writeHead(statusCode, { 'content-type': String(headers['content-type'] ?? '') });
            return res;
          });
          return;
        }
        const up = await forwardChat(pool, target, body, req.headers.authorization);
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
