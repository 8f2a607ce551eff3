// bench:cold-start's baseline: Fastify's hello world on the port it is given (the same Fastify as
// Berth), plain JavaScript like Berth's built control plane.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
