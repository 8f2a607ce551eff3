// The baseline server of bench:api: Fastify's hello world, the same Fastify version as Berth.
import Fastify from 'fastify';
import { ready } from './processes.js';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
const address = await app.listen({ port: 0, host: '127.0.0.1' });
ready(`hello listening on ${address}`);
