// bench:cold-start's baseline: Fastify's hello world on the port it is given (the same Fastify as
// Berth), plain JavaScript like Berth's built control plane. It prints the same start-up marks as
// Berth's "ready" log line (main.ts): after loading, after building the app, once listening.
import Fastify from 'fastify';

const mark = () => {
  const { user, system } = process.cpuUsage();
  return { ms: Math.round(performance.now()), cpuMs: Math.round((user + system) / 1000) };
};
const loaded = mark();
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.ready();
const built = mark();
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
const listening = mark();
process.stdout.write(`${JSON.stringify({ startup: { loaded, built, listening } })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
