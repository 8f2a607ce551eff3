// The model router of bench:gateway, in a process of its own as a real router is: a baseline call
// from the load generator crosses processes as a worker's call does (with the router inside the
// generator's process, the "direct" call never left one event loop).
import { FakeModelProvider } from '@berth/testkit';
import { ready } from './processes.js';

const router = await new FakeModelProvider().start();
router.fallback = () => ({ content: 'pong' });
ready(`router listening on ${router.url}`);
process.on('SIGINT', () => process.exit(0));
