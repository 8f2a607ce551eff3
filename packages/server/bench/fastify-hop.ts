// The bare hop (bare-hop.ts) on Fastify: one POST route, the body kept raw, the answer buffered and
// sent back. What it adds over the bare hop is Fastify's own per-request cost, with no hook,
// credential, limit or check of Berth's: the floor of any proxy built on the framework.
import Fastify from 'fastify';
import { Pool } from 'undici';
import { ready } from './processes.js';

const target = new URL(process.argv[2]!);
const pool = new Pool(target.origin, { connections: null, pipelining: 1 });
const app = Fastify({ logger: false });
app.removeContentTypeParser('application/json');
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post<{ Body: Buffer }>('/v1/chat/completions', async (req, reply) => {
  const up = await pool.request({
    method: 'POST',
    path: `${target.pathname}/chat/completions`,
    body: req.body,
    headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
  });
  reply.status(up.statusCode).header('content-type', String(up.headers['content-type'] ?? ''));
  return Buffer.from(await up.body.arrayBuffer());
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
ready(`fastify hop listening on ${address}`);
