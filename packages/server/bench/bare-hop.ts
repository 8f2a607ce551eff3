// The floor under bench:gateway: a bare Node process that forwards each call to the router (no
// Fastify, no credential, no metering) and returns the answer. What it adds over the direct call is
// what any extra process hop costs on the machine, whatever runs in it.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { ready } from './processes.js';

const target = new URL(process.argv[2]!);
const pool = new Pool(target.origin, { connections: null, pipelining: 1 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const up = await pool.request({
      method: 'POST',
      path: `${target.pathname}/chat/completions`,
      body: Buffer.concat(chunks),
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
    });
    res.writeHead(up.statusCode, { 'content-type': String(up.headers['content-type'] ?? '') });
    res.end(Buffer.from(await up.body.arrayBuffer()));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address() as { port: number };
  ready(`bare hop listening on http://127.0.0.1:${a.port}`);
});
