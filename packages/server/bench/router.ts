// The model router of bench:gateway, in a process of its own as a real router is: a baseline call
// from the load generator crosses processes as a worker's call does (with the router inside the
// generator's process, the "direct" call never left one event loop).
import { FakeModelProvider } from '@berth/testkit';
import { SLOW_CHUNK_MS, SLOW_PROMPT, SLOW_WORDS } from './slow-answer.js';
import { ready } from './processes.js';

const router = await new FakeModelProvider().start();
const slow = { content: 'word '.repeat(SLOW_WORDS).trim(), chunkDelayMs: SLOW_CHUNK_MS };
// A chat of the concurrent-streams rows asks for a long answer at a model's pace; the rest, a short one.
router.fallback = (body) => (body?.messages?.at(-1)?.content === SLOW_PROMPT ? slow : { content: 'pong' });
ready(`router listening on ${router.url}`);
process.on('SIGINT', () => process.exit(0));
