// The bare hop (bare-hop.ts) on Fastify: one POST route, the body kept raw, the answer buffered and
// sent back. What it adds over the bare hop is Fastify's own per-request cost, with no hook,
// credential, limit or check of Berth's: the floor of any proxy built on the framework.
import Fastify from 'fastify';
import { Pool } from 'undici';
import { forwardChat } from './forwarding-hop.js';
import { ready } from './processes.js';

const target = new URL(process.argv[2]!);
const pool = new Pool(target.origin, { connections: null, pipelining: 1 });
const app = Fastify({ logger: false });
app.removeContentTypeParser('application/json');
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
app.post<{ Body: Buffer }>('/v1/chat/completions', async (req, reply) => {
  const up = await forwardChat(pool, target, req.body, req.headers.authorization);
  reply.status(up.status).header('content-type', up.type);
  return up.body;
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
ready(`fastify hop listening on ${address}`);
